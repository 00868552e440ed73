/// What a store mutation did, for ProgressDaemon and its outputs to turn into a reply and signals.
public struct TaskChange: Sendable, Equatable {
    /// Equal when they say the same thing; the task it carries is a copy of what the store
    /// had, so it takes no part.
    public static func == (a: TaskChange, b: TaskChange) -> Bool {
        a.name == b.name && a.kind == b.kind && a.properties == b.properties && a.isImmediate == b.isImmediate
            && a.requests == b.requests && a.isRestart == b.isRestart && a.sequence == b.sequence
    }

    public enum Kind: Sendable, Equatable {
        /// A new task: its object appears (InterfacesAdded).
        case created
        /// Properties of an existing task changed (PropertiesChanged, maybe coalesced).
        case updated
        /// The task is gone (InterfacesRemoved).
        case removed
    }

    public let name: TaskName
    public let kind: Kind
    /// The properties whose values changed; empty when the call changed nothing.
    public let properties: TaskProperties
    /// A change of state or of determinate/indeterminate mode, which is never coalesced:
    /// it goes out at once, after anything still pending for the task.
    public let isImmediate: Bool
    /// Requests to send to the job as signals on the task object, after the properties.
    public var requests: [TaskRequest] { attachments.requests }
    /// An ended task started afresh on the same object.
    public let isRestart: Bool
    /// The task was bound to another connection (`ProgressTask.boundConnection`), which the
    /// journal keeps at once, so that a restart binds it to the right one.
    public let rebinds: Bool
    /// The task as this change left it; for a `removed` change, as it was when it went.
    /// Outputs judge a change by this, never by the store's present state, which may
    /// already be later: the changes of one batch, and the batches of held values that go
    /// down the stream after the command that applied them, each say what they did.
    public var task: ProgressTask { attachments.task }
    /// The task as it was when it went, for a `removed` change: outputs holding signals
    /// about it can still send them, and say what ended.
    public var lastValue: ProgressTask? { kind == .removed ? attachments.task : nil }
    /// The task and the requests, in one shared box, so that copies of a change (every
    /// output's loop over a batch makes them) share one task rather than each holding its
    /// own (docs/performance.md).
    private let attachments: Attachments
    /// The change's place in the daemon's one sequence; the front door numbers it.
    public package(set) var sequence: UInt64 = 0

    /// `task` is the task after the change (for `removed`, the task that went).
    public init(
        name: TaskName, kind: Kind, properties: TaskProperties, isImmediate: Bool, requests: [TaskRequest] = [],
        isRestart: Bool = false, rebinds: Bool = false, task: ProgressTask
    ) {
        self.name = name
        self.rebinds = rebinds
        self.kind = kind
        self.properties = properties
        self.isImmediate = isImmediate
        self.isRestart = isRestart
        attachments = Attachments(task: task, requests: requests)
    }

    public var isEmpty: Bool { kind == .updated && properties.isEmpty && requests.isEmpty && !rebinds }

    /// A change that must be on disk before the daemon replies: the task came or went,
    /// its state or a request changed, or it was bound to another connection. Other
    /// changes may be written a little later.
    public var mustPersistNow: Bool {
        kind != .updated || rebinds || !properties.isDisjoint(with: Self.persistedAtOnce)
    }

    /// Kept once, not built from its literal by every update that asks.
    private static let persistedAtOnce: TaskProperties = [.state, .cancelRequested, .parent, .lifetime]
}

/// A change's task and requests, shared by the copies of the change.
private final class Attachments: Sendable {
    let task: ProgressTask
    let requests: [TaskRequest]

    init(task: ProgressTask, requests: [TaskRequest]) {
        self.task = task
        self.requests = requests
    }
}
