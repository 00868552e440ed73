import ProgressModel

extension TaskStore {
    /// The task's persisted fields, and its owner when that is not the host (a sandboxed
    /// app keeps its tasks across a restart). None for a system job: its service is the
    /// truth, and the bridge reads it again after a restart.
    func record(of name: TaskName) -> TaskRecord? {
        tasks[name].flatMap(properties.persistedRecord(of:))
    }

    var allRecords: [TaskRecord] { sortedNames.compactMap(record(of:)) }

    /// Puts recorded tasks back after a restart, into an empty store. Records that no longer
    /// pass today's checks are skipped and reported, never trusted. Every timer restarts from
    /// now: the daemon can not know how long it was down, so leases get their full length.
    /// A task keeps the connection its record names (`TaskBinding`): a `caller` task is bound
    /// to it again, and fails when it leaves the bus; a record without one (an older
    /// daemon's) leaves a `caller` task Stalled until its job starts it again.
    /// Only the front door calls it (`TaskFrontDoor.restore`), which hands the tasks to the
    /// outputs as a batch. A restored task is charged to no one: its process is gone.
    func restore(_ records: [TaskRecord]) -> [String] {
        var problems: [String] = []
        let now = clock.monotonicMicros
        for record in records {
            guard let name = try? self.name(record.name) else {
                problems.append("skipped a task with an invalid name \(quoted(record.name))")
                continue
            }
            var task = ProgressTask(
                name: name, caller: ClientID(""), wallMicros: record.fields["created"]?.int64 ?? clock.wallMicros,
                monotonicMicros: now, limits: limits)
            task.chargedTo = nil
            var wrong = properties.restore(record, into: &task)
            if let text = record.fields["owner"] {
                if case .string(let owner) = text, let owner = TaskOwner(recordText: owner) {
                    task.owner = owner
                } else {
                    wrong.append("owner")
                }
            }
            task.boundConnection = TaskBinding.restore(from: record, owner: task.owner, wrong: &wrong)
            // Older daemons let control characters into texts; they are spaces now.
            let texts = [task.title, task.message, task.unit, task.appId]
            task.title = ClientText.repaired(task.title)
            task.message = ClientText.repaired(task.message)
            task.unit = ClientText.repaired(task.unit)
            task.appId = ClientText.repaired(task.appId)
            if texts != [task.title, task.message, task.unit, task.appId] {
                problems.append("task \(quoted(record.name)) had control characters in its texts: they are spaces now")
            }
            guard wrong.isEmpty else {
                problems.append(
                    "skipped task \(quoted(record.name)): \(wrong.joined(separator: ", ")) of the wrong type")
                continue
            }
            guard task.storedFraction.isFinite, (0...1).contains(task.storedFraction),
                  task.total == 0 || task.completed <= task.total, tasks.count < limits.maxTasks else {
                problems.append("skipped task \(quoted(record.name)): its values are out of range")
                continue
            }
            task.outcomeTime = task.ownState.isOutcome ? now : nil
            if !task.isLive { task.boundConnection = nil }
            tasks[name] = task
            if task.isLive, task.lifetime == .caller, let bound = task.boundConnection { bindAgain(name, to: bound) }
        }
        // Changing a task's parent changes its slot, not the table, so the walk stays valid.
        for task in tasks.tasks {
            let name = task.name
            guard let parent = task.parent else { continue }
            if !reachesTheTop(from: name) {
                problems.append("task \(quoted(name.text)) had a parent loop or too deep a tree: it is top-level now")
                tasks[name]?.parent = nil
            } else if tasks[parent] == nil {
                problems.append("task \(quoted(name.text)) lost its parent \(quoted(parent.text)): it is top-level now")
                tasks[name]?.parent = nil
            } else {
                children[parent, default: []].insert(name)
            }
        }
        for name in children.keys { tasks[name]?.hasChildren = true }
        for name in children.keys { _ = tasks[name].map(recompute) }
        return problems
    }

    /// Every name, each parent before its children (by depth, then byte order).
    var namesParentsFirst: [TaskName] {
        func depth(_ name: TaskName) -> Int {
            var depth = 0
            var current = tasks[name]?.parent
            while let parent = current, depth <= limits.maxTreeDepth {
                depth += 1
                current = tasks[parent]?.parent
            }
            return depth
        }
        return sortedNames.map { ($0, depth($0)) }.sorted { $0.1 < $1.1 }.map(\.0)
    }

    /// Whether following parents from `name` ends at a top-level task within the depth limit.
    private func reachesTheTop(from name: TaskName) -> Bool {
        var current: TaskName? = name
        for _ in 0...limits.maxTreeDepth {
            guard let task = current.flatMap({ tasks[$0] }) else { return true }
            current = task.parent
        }
        return current == nil
    }
}

extension TaskState: Codable {}
