import ProgressModel

/// What the store answers a read with: the tasks, their names in order, the summaries and
/// the sizes a large read is refused by. `TaskView` is how anyone outside the core asks.
extension TaskStore {
    var count: Int { tasks.count }

    func task(_ name: TaskName) -> ProgressTask? { tasks[name] }

    /// Who owns the task, read without copying it out.
    func owner(of name: TaskName) -> TaskOwner? { tasks.owner(of: name) }

    /// Whether a SetFraction of the task may be held (`StagedValues`): it would be taken
    /// (a live task without children), it would change nothing but the value and what
    /// counts it (the task shows a value, runs and is not stalled, so nothing signalled at
    /// once moves), and the task updates frequently, so its value is heard at a pace anyway.
    func takesHeldValue(_ name: TaskName) -> Bool {
        tasks.read(name) { task in
            task.updatesFrequently && task.state == .running && !task.hasChildren && !task.indeterminate
                && !task.isStalled
        } ?? false
    }

    /// Names in a stable order (byte order of their UTF-8), for List and Snapshot; kept in
    /// that order as tasks come and go, so reading it sorts nothing.
    var sortedNames: [TaskName] { Array(tasks.namesInOrder) }

    /// The same order, without a copy.
    var namesInOrder: some Sequence<TaskName> { tasks.namesInOrder }

    /// The fewest bytes a reply holding every task can take, when each task takes its name
    /// and at least `perTask` bytes besides: what a large read is refused by before anything
    /// of it is built. Kept as tasks come and go, so it costs the same among 100,000 tasks.
    func leastReplyBytes(perTask: Int) -> Int { tasks.nameBytes + tasks.count * perTask }

    /// The names after `text` in that order (all for ""): where a page starts, found by
    /// binary search, so a page costs what it returns.
    func names(after text: String) -> some Sequence<TaskName> { tasks.names(after: text) }

    /// Parses a client's name, in NFC, with this store's limits.
    func name(_ text: String) throws(ProgressError) -> TaskName {
        if let name = TaskName(printableASCII: text, limits: limits) { return name }
        return try TaskName(normalizeName(text), limits: limits)
    }

    /// The summary of the top-level tasks, or of those of one application.
    func summary(appId: String? = nil) -> TaskSummary {
        tasks.totals(appId: appId).summary
    }

    /// The same summary by a walk of every task: what the running totals must equal (tests).
    func summaryByWalking(appId: String? = nil) -> TaskSummary {
        TaskSummary(of: tasks.tasks.lazy.filter { appId == nil || $0.appId == appId })
    }
}
