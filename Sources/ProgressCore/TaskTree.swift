import ProgressModel

/// A parent's values follow from its children. These rules are documented in the XML
/// (Start's `parent` key) and tested one by one.
extension TaskStore {
    /// The parent a Start names, checked: it exists, is live, is not the task itself or one
    /// of its descendants, and keeps the tree within its depth.
    func validParent(_ text: String, for name: TaskName) throws(ProgressError) -> TaskName {
        let parent = try self.name(text)
        guard let parentTask = tasks[parent] else { throw .noSuchTask("parent \(quoted(text)) does not exist") }
        guard parentTask.isLive else {
            throw .invalidValue("parent \(quoted(text)) is \(parentTask.state.rawValue); children join live tasks only")
        }
        var depth = 1
        var ancestor: TaskName? = parent
        while let current = ancestor {
            if current == name { throw .invalidValue("task \(quoted(name.text)) can not be its own ancestor") }
            depth += 1
            ancestor = tasks[current]?.parent
        }
        if depth > limits.maxTreeDepth {
            throw .limitExceeded(
                "task \(quoted(name.text)) would be \(depth) levels deep; the limit is \(limits.maxTreeDepth)")
        }
        return parent
    }

    /// The rule for ending a parent whose children still run: Finish and Fail are refused
    /// with NotAllowed naming them (a parent that read finished and 100 % while a child
    /// was at 20 % told a falsehood, and the child's later failure changed nothing). The job
    /// ends the children first, or Removes the parent with them. A failed child still fails
    /// its parent by itself (child-failure), and that parent lingers while others run.
    func refuseWhileChildrenRun(_ name: TaskName, action: String) throws(ProgressError) {
        let running = (children[name] ?? []).filter { tasks[$0]?.isLive == true }
            .sorted { $0.text.utf8.lexicographicallyPrecedes($1.text.utf8) }
        guard !running.isEmpty else { return }
        let shown = running.prefix(5).map { quoted($0.text) }.joined(separator: ", ")
            + (running.count > 5 ? ", …" : "")
        throw .notAllowed(
            "task \(quoted(name.text)) can not be \(action) while \(running.count) of its children "
                + "\(running.count == 1 ? "runs" : "run") (\(shown)); "
                + "finish or fail them first, or Remove it with them")
    }

    /// An ended child started again under another parent leaves the former one, which then
    /// counts without it: a child kept in both lists would be removed with the former parent,
    /// would hold it running, and could close a loop in the lists that the parents' chain,
    /// which Start checks, does not show.
    func leaveParent(_ parent: TaskName, child: TaskName) -> [TaskChange] {
        children.remove(child, from: parent)
        return tasks[parent].map { recompute($0) } ?? []
    }

    /// Removes the task and every task under it, children first.
    func removeSubtree(_ name: TaskName) -> [TaskChange] {
        var changes: [TaskChange] = []
        for child in (children[name] ?? []).sorted(by: { $0.text < $1.text }) { changes += removeSubtree(child) }
        guard let task = tasks.removeValue(forKey: name) else { return changes }
        release(task)
        children[name] = nil
        if let parent = task.parent { children.remove(name, from: parent) }
        changes.append(TaskChange(name: name, kind: .removed, properties: [], isImmediate: true, task: task))
        return changes
    }

    /// Recomputes each ancestor of `task` in turn, up to the top.
    func recomputeAncestors(of task: ProgressTask) -> [TaskChange] {
        guard let parent = task.parent, let parentTask = tasks[parent] else { return [] }
        return recompute(parentTask)
    }

    func recompute(_ parent: ProgressTask) -> [TaskChange] {
        var task = parent
        let before = parent
        let kids = (children[parent.name] ?? []).compactMap { tasks[$0] }
        task.hasChildren = !kids.isEmpty
        if task.isLive { aggregate(kids, into: &task) }
        // Children at work are the parent's activity: it neither stalls nor expires meanwhile.
        if let latest = kids.map(\.lastActivity).max(), latest > task.lastActivity {
            task.lastActivity = latest
            task.stalled = false
        }
        let change = commit(task, replacing: before, activity: false)
        return (change.isEmpty ? [] : [change]) + recomputeAncestors(of: tasks[task.name]!)
    }

    /// - Cancelled children, and failed ones under `child-failure: ignore`, no longer count.
    /// - A failed child fails a live parent under `child-failure: fail` (the default).
    /// - Fraction is the weighted mean of the children's: a finished child counts 1, an
    ///   indeterminate one 0, so the parent never claims more than is known to be done.
    /// - The parent is indeterminate only when every counted child is (and none finished).
    /// - Completed and Total are the children's sums when all counted children share a unit
    ///   and know their total.
    /// - A paused child shows the parent paused (failed > paused > running);
    ///   a stalled child shows it stalled.
    private func aggregate(_ kids: [ProgressTask], into task: inout ProgressTask) {
        if task.childFailure == .fail, let failed = kids.first(where: { $0.ownState == .failed }) {
            enterOutcome(.failed, &task)
            task.message = "child \(quoted(failed.name.text)) failed"
                + (failed.message.isEmpty ? "" : ": \(failed.message)")
            return
        }
        let counted = kids.filter { $0.ownState != .cancelled && $0.ownState != .failed }
        let live = counted.filter(\.isLive)
        task.childPaused = live.contains { $0.state == .paused }
        task.childStalled = live.contains { $0.isStalled }
        guard !counted.isEmpty else { return }
        task.indeterminate = counted.allSatisfy { $0.indeterminate && $0.ownState != .finished }
        let totalWeight = counted.reduce(0) { $0 + $1.weight }
        if totalWeight > 0 {
            let done = counted.reduce(0.0) { sum, kid in
                let value = kid.ownState == .finished ? 1 : (kid.indeterminate ? 0 : kid.storedFraction)
                return sum + kid.weight * value
            }
            task.storedFraction = min(1, max(0, done / totalWeight))
        }
        let units = Set(counted.map(\.unit))
        if units.count == 1, let unit = units.first, !unit.isEmpty, counted.allSatisfy({ $0.total > 0 }) {
            task.unit = unit
            task.completed = counted.reduce(0) { saturatingSum($0, $1.completed) }
            task.total = counted.reduce(0) { saturatingSum($0, $1.total) }
        }
    }
}

private func saturatingSum(_ a: UInt64, _ b: UInt64) -> UInt64 {
    let (sum, overflow) = a.addingReportingOverflow(b)
    return overflow ? .max : sum
}

extension Dictionary {
    /// Takes `member` out of the set under `key`, and the set with it once it is empty, so
    /// that nothing is kept for a key with no members.
    mutating func remove<Member>(_ member: Member, from key: Key) where Value == Set<Member> {
        self[key]?.remove(member)
        if self[key]?.isEmpty == true { self[key] = nil }
    }
}
