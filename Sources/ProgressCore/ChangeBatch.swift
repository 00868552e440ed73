/// Who is on the other end of a call: a connection's unique bus name (":1.42") and the
/// identity the adapter learned for it (who owns what it starts, where its caps count).
/// A type of its own, so that a caller can not be confused with a task name, an app id or
/// any other string.
///
/// Two ClientIDs are equal when their unique names are: the bus never gives a unique name
/// twice, and a connection's identity is learned once and kept for its life, so the name
/// alone tells connections apart (and a lost connection is known by its name only).
public struct ClientID: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let uniqueName: String
    public let identity: CallerIdentity

    public init(_ uniqueName: String, identity: CallerIdentity = .host) {
        self.uniqueName = uniqueName
        self.identity = identity
    }
    public init(stringLiteral value: String) { self.init(value) }

    public var description: String { uniqueName }

    public static func == (a: ClientID, b: ClientID) -> Bool { a.uniqueName == b.uniqueName }
    public func hash(into hasher: inout Hasher) { hasher.combine(uniqueName) }
}

/// Where a change batch came from. Every input that acts for a client names the client,
/// identity included, so that the same access rules and caps hold whichever protocol it
/// spoke. Outputs may treat origins differently: a bridge does not echo back what it brought
/// in, a log names who did what.
public enum ChangeOrigin: Hashable, Sendable {
    /// A client's Progress1 method call.
    case client(ClientID)
    /// A client speaking another protocol through a bridge (such as `launcher-entry` or
    /// `kde`): held to the same rules and caps as a Progress1 call from that client.
    case bridge(String, ClientID)
    /// A client left the bus; its `caller` tasks fail.
    case connectionClosed(ClientID)
    /// A timing rule fell due: stall, lease expiry, linger.
    case timer
    /// The daemon itself (named): what the user asked through the daemon's own surface (a
    /// notification's action), or an input tidying what a previous run left.
    case daemon(String)
    /// Tasks put back from the state directory at start, before any input runs.
    case restore

    /// Whether the batch puts back what a previous run left: outputs that announce or
    /// record changes skip it. A match of the case, where `== .restore` builds an origin
    /// and copies both into the derived comparison, at every batch of every output.
    public var isRestore: Bool {
        if case .restore = self { true } else { false }
    }

    /// The client whose rights the command has, if a client is behind it.
    public var speaker: ClientID? {
        switch self {
        case .client(let client), .bridge(_, let client): client
        case .connectionClosed, .timer, .daemon, .restore: nil
        }
    }
}

/// What one mutation did, in order: each change numbered with the next value of a
/// sequence that the whole daemon shares and that never goes back, and the origin of all
/// of them. Outputs receive batches in sequence order, with no gaps.
public struct ChangeBatch: Sendable {
    public let origin: ChangeOrigin
    public let changes: [TaskChange]

    public init(origin: ChangeOrigin, changes: [TaskChange]) {
        self.origin = origin
        self.changes = changes
    }

    public var isEmpty: Bool { changes.isEmpty }

    /// The sequence number of the last change, if there is one.
    public var lastSequence: UInt64? { changes.last?.sequence }
}

/// The result of a command at the front door: the batches of the values held before it
/// (applied first), the batch of what it changed, and the error that stopped it, if one
/// did. A refused command has an empty batch; an UpdateMany refused at entry N has the
/// changes of the entries before N and the error for N. All are published, in order: what
/// was applied is never kept from the outputs.
public struct CommandOutcome: Sendable {
    /// The values held for tasks that update frequently, applied before the command, one
    /// batch each with the identity that sent it: they go down the stream before `batch`.
    public let held: [ChangeBatch]
    public let batch: ChangeBatch
    public let error: ProgressError?
    /// The command's value was held, the first since the last were applied: the front
    /// door's `applyHeld` is due within this many microseconds.
    public let heldValuesDue: Int64?

    init(held: [ChangeBatch], batch: ChangeBatch, error: ProgressError?, heldValuesDue: Int64? = nil) {
        self.held = held
        self.batch = batch
        self.error = error
        self.heldValuesDue = heldValuesDue
    }

    /// Every batch, in the order they go down the stream.
    public var batches: [ChangeBatch] { held + [batch] }
}
