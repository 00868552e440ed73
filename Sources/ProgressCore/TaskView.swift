import ProgressModel

/// A read-only look at the tasks. Only `TaskFrontDoor.read` makes one, after the values it
/// holds are applied (their batches down the change stream) and the signals outputs hold
/// back for the read's scope are sent: whoever reads through it sees every acknowledged
/// write, and hears of it before the reply. Nothing here changes a task.
///
/// A view is for the body of the read that gave it: kept beyond it, it would show later
/// states without the barrier.
public struct TaskView {
    private let store: TaskStore

    init(_ store: TaskStore) { self.store = store }

    /// How many tasks there are.
    public var count: Int { store.count }

    public func task(_ name: TaskName) -> ProgressTask? { store.task(name) }

    /// Whether a task of that name exists, without copying it out.
    public func contains(_ name: TaskName) -> Bool { store.owner(of: name) != nil }

    /// Who owns the task, read without copying it out.
    public func owner(of name: TaskName) -> TaskOwner? { store.owner(of: name) }

    /// Every name in a stable order (byte order of their UTF-8), kept in that order as tasks
    /// come and go, so reading it sorts nothing.
    public var namesInOrder: some Sequence<TaskName> { store.namesInOrder }

    /// The same order, as an array.
    public var sortedNames: [TaskName] { store.sortedNames }

    /// The names after `text` in that order (all for ""): where a page starts, found by
    /// binary search, so a page costs what it returns.
    public func names(after text: String) -> some Sequence<TaskName> { store.names(after: text) }

    /// The summary of the top-level tasks (`Overall`), or of one application's (`Aggregate`).
    public func summary(appId: String? = nil) -> TaskSummary { store.summary(appId: appId) }

    /// The task's persisted fields (`TaskStore.record(of:)`).
    public func record(of name: TaskName) -> TaskRecord? { store.record(of: name) }

    /// The fewest bytes a reply holding every task can take (`TaskStore.leastReplyBytes`).
    public func leastReplyBytes(perTask: Int) -> Int { store.leastReplyBytes(perTask: perTask) }

    /// The properties of the tasks: what the bus shows and how options are read.
    public var properties: TaskPropertyTable { store.properties }

    public var limits: Limits { store.limits }

    /// Parses a client's name, in NFC, with the store's limits.
    public func name(_ text: String) throws(ProgressError) -> TaskName { try store.name(text) }
}
