/// What the daemon keeps of a task across restarts. Codable, so the state directory can
/// write it; Core itself does no I/O. Connections are not kept: they die with the daemon.
public struct TaskRecord: Codable, Equatable, Sendable {
    public var name: String
    public var title: String
    public var state: TaskState
    public var indeterminate: Bool
    public var fraction: Double
    public var completed: UInt64
    public var total: UInt64
    public var unit: String
    public var message: String
    public var appId: String
    public var updatesFrequently: Bool
    public var serial: UInt64
    public var created: Int64
    public var updated: Int64
    public var lifetime: Lifetime
    public var leaseSeconds: UInt32
    public var stallSeconds: UInt32
    public var lingerSeconds: UInt32
    public var cancellable: Bool
    public var pausable: Bool
    public var cancelRequested: Bool
    public var parent: String?
    public var weight: Double
    public var childFailure: ChildFailurePolicy

    public init(
        name: String,
        title: String,
        state: TaskState,
        indeterminate: Bool,
        fraction: Double,
        completed: UInt64,
        total: UInt64,
        unit: String,
        message: String,
        appId: String,
        updatesFrequently: Bool,
        serial: UInt64,
        created: Int64,
        updated: Int64,
        lifetime: Lifetime,
        leaseSeconds: UInt32,
        stallSeconds: UInt32,
        lingerSeconds: UInt32,
        cancellable: Bool,
        pausable: Bool,
        cancelRequested: Bool,
        parent: String?,
        weight: Double,
        childFailure: ChildFailurePolicy
    ) {
        self.name = name
        self.title = title
        self.state = state
        self.indeterminate = indeterminate
        self.fraction = fraction
        self.completed = completed
        self.total = total
        self.unit = unit
        self.message = message
        self.appId = appId
        self.updatesFrequently = updatesFrequently
        self.serial = serial
        self.created = created
        self.updated = updated
        self.lifetime = lifetime
        self.leaseSeconds = leaseSeconds
        self.stallSeconds = stallSeconds
        self.lingerSeconds = lingerSeconds
        self.cancellable = cancellable
        self.pausable = pausable
        self.cancelRequested = cancelRequested
        self.parent = parent
        self.weight = weight
        self.childFailure = childFailure
    }
}

extension TaskState: Codable {}

extension TaskStore {
    public func record(of name: TaskName) -> TaskRecord? {
        guard let task = tasks[name] else { return nil }
        return TaskRecord(
            name: task.name.text, title: task.title, state: task.ownState, indeterminate: task.indeterminate,
            fraction: task.storedFraction, completed: task.completed, total: task.total, unit: task.unit,
            message: task.message, appId: task.appId, updatesFrequently: task.ownerSaysFrequent, serial: task.serial,
            created: task.created, updated: task.updated, lifetime: task.lifetime, leaseSeconds: task.leaseSeconds,
            stallSeconds: task.stallSeconds, lingerSeconds: task.lingerSeconds, cancellable: task.cancellable,
            pausable: task.pausable, cancelRequested: task.cancelRequested, parent: task.parent?.text,
            weight: task.weight, childFailure: task.childFailure)
    }

    public var allRecords: [TaskRecord] { sortedNames.compactMap(record(of:)) }

    /// Puts recorded tasks back after a restart, into an empty store. Records that no longer
    /// pass today's checks are skipped and reported, never trusted. Every timer restarts from
    /// now: the daemon can not know how long it was down, so leases get their full length.
    /// A `caller` task has no connection until its job starts it again, and shows Stalled.
    public func restore(_ records: [TaskRecord]) -> [String] {
        var problems: [String] = []
        let now = clock.monotonicMicros
        for record in records {
            guard let name = try? TaskName(record.name, limits: limits) else {
                problems.append("skipped a task with an invalid name \(quoted(record.name))")
                continue
            }
            guard record.fraction.isFinite, (0...1).contains(record.fraction),
                  record.total == 0 || record.completed <= record.total, tasks.count < limits.maxTasks else {
                problems.append("skipped task \(quoted(record.name)): its values are out of range")
                continue
            }
            var task = ProgressTask(
                name: name, caller: ClientID(""), wallMicros: record.created, monotonicMicros: now, limits: limits,
                serial: record.serial)
            task.title = record.title
            task.ownState = record.state
            task.indeterminate = record.indeterminate
            task.storedFraction = record.fraction
            task.completed = record.completed
            task.total = record.total
            task.unit = record.unit
            task.message = record.message
            task.appId = record.appId
            task.ownerSaysFrequent = record.updatesFrequently
            task.updated = record.updated
            task.lifetime = record.lifetime
            task.leaseSeconds = record.leaseSeconds
            task.stallSeconds = record.stallSeconds
            task.lingerSeconds = record.lingerSeconds
            task.cancellable = record.cancellable
            task.pausable = record.pausable
            task.cancelRequested = record.cancelRequested
            task.parent = record.parent.flatMap { try? TaskName($0, limits: limits) }
            task.weight = record.weight
            task.childFailure = record.childFailure
            task.outcomeTime = record.state.isOutcome ? now : nil
            tasks[name] = task
        }
        for (name, task) in tasks {
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
