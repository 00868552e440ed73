/// One Start or Update of a batch, parsed.
public struct NamedUpdate: Sendable, Equatable {
    public let name: TaskName
    public let update: TaskUpdate

    public init(name: TaskName, update: TaskUpdate) {
        self.name = name
        self.update = update
    }
}

/// Every mutation a client (or a bridge speaking for one) can ask of the daemon, parsed and
/// checked on its own; the front door checks it against the tasks and applies it.
///
/// A Start's or Update's options are held in a box of their own (`indirect`): inline, a
/// TaskUpdate of some thirty optional fields would make every command that large, and the
/// value update a job sends hundreds of times a second is copied through several calls on
/// its way to the store.
public enum TaskCommand: Sendable, Equatable {
    indirect case start(TaskName, TaskUpdate)
    indirect case update(TaskName, TaskUpdate)
    /// Updates applied in order; a refusal stops there, the ones before it staying applied.
    case updateMany([NamedUpdate])
    case setFraction(TaskName, Double)
    case pulse(TaskName)
    case finish(TaskName)
    case fail(TaskName, message: String)
    case remove(TaskName)
    case requestCancel(TaskName)
    case requestPause(TaskName)
    case requestResume(TaskName)

    /// The task the command is about, for authorization and messages; nil for a batch.
    public var taskName: TaskName? {
        switch self {
        case .start(let name, _), .update(let name, _), .setFraction(let name, _), .pulse(let name),
             .finish(let name), .fail(let name, _), .remove(let name), .requestCancel(let name),
             .requestPause(let name), .requestResume(let name):
            name
        case .updateMany:
            nil
        }
    }
}
