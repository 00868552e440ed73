/// Who owns a task: the identity that started it. The adapter learns a connection's
/// identity from the bus (its user id, process id and security label) and, for a Flatpak
/// app, from the sandbox's `.flatpak-info`; Core only compares them.
///
/// All of the user's unconfined processes are one owner, `host`: a shell script's one-shot
/// `gdbus` calls each come from a new process and a new connection, and they must keep
/// driving the task the script started. A sandboxed app is confined: it is one owner however
/// many processes and connections it has, and it may change only its own tasks.
public enum TaskOwner: Hashable, Sendable, CustomStringConvertible {
    /// The session user's own, unconfined processes.
    case host
    /// A Flatpak app, by the `[Application] name` of its sandbox's `.flatpak-info`.
    case flatpak(String)
    /// A Snap, by the snap name in its AppArmor label (`snap.NAME.APP`).
    case snap(String)
    /// A process of another user (a session bus normally has none).
    case otherUser(UInt32)
    /// A connection whose identity could not be learned (its process had gone, or the bus
    /// did not answer): confined, so that a failure never grants the host's rights.
    case unknown
    /// Jobs of system services (PackageKit, UDisks2, fwupd, importd) that the system-bus
    /// bridge reads: the service is their truth, so no session client may change them.
    case system

    /// Whether the owner is held to its own tasks.
    public var isConfined: Bool { self != .host }

    /// The app id a sandboxed owner's tasks carry: the Flatpak id or the snap name.
    public var sandboxAppId: String? {
        switch self {
        case .flatpak(let id), .snap(let id): id
        default: nil
        }
    }

    public var description: String {
        switch self {
        case .host: "the host (the user's unconfined processes)"
        case .flatpak(let id): "the Flatpak app \(quoted(id))"
        case .snap(let name): "the Snap \(quoted(name))"
        case .otherUser(let uid): "user \(uid)"
        case .unknown: "a connection of unknown identity"
        case .system: "the system (jobs of system services)"
        }
    }

    /// How the journal keeps the owner: `host`, `flatpak:ID`, `snap:NAME`, `user:UID`, `unknown`.
    public var recordText: String {
        switch self {
        case .host: "host"
        case .flatpak(let id): "flatpak:" + id
        case .snap(let name): "snap:" + name
        case .otherUser(let uid): "user:\(uid)"
        case .unknown: "unknown"
        case .system: "system"
        }
    }

    public init?(recordText text: String) {
        if text == "host" { self = .host; return }
        if text == "unknown" { self = .unknown; return }
        if text == "system" { self = .system; return }
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let value = String(text[text.index(after: colon)...])
        switch text[..<colon] {
        case "flatpak": self = .flatpak(value)
        case "snap": self = .snap(value)
        case "user":
            guard let uid = UInt32(value) else { return nil }
            self = .otherUser(uid)
        default: return nil
        }
    }
}

/// What the adapter learned about one connection, once, when it first called.
public struct CallerIdentity: Hashable, Sendable {
    public var owner: TaskOwner
    /// The process on the other end, as the bus saw it when the connection was made; nil
    /// when the bus did not say (a bridge, a test).
    public var processID: UInt32?
    /// When that process started (clock ticks after boot, /proc/PID/stat's `starttime`): with
    /// the process id, it names the process even once the id could be reused, so that a
    /// restart binds a task again only to the very process it belonged to. Nil when unknown.
    public var processStart: UInt64?

    public init(owner: TaskOwner, processID: UInt32? = nil, processStart: UInt64? = nil) {
        self.owner = owner
        self.processID = processID
        self.processStart = processStart
    }

    /// The unconfined identity internal sources and tests speak with.
    public static let host = CallerIdentity(owner: .host)
    /// The system-bus bridge, the only identity that changes `system/` tasks.
    public static let system = CallerIdentity(owner: .system)
}

/// What the per-caller caps count against: a host process (so that 64 connections from one
/// process are one process), a sandboxed identity (so that an app's many processes and
/// connections are one app), or, when neither is known, the connection itself.
public enum ChargeKey: Hashable, Sendable, CustomStringConvertible {
    case process(UInt32)
    case owner(TaskOwner)
    case connection(String)

    public var description: String {
        switch self {
        case .process(let pid): "process \(pid)"
        case .owner(let owner): owner.description
        case .connection(let name): "connection \(name)"
        }
    }
}

extension ClientID {
    /// Where this caller's tasks and subscriptions are counted.
    public var chargeKey: ChargeKey {
        switch identity.owner {
        case .host:
            if let pid = identity.processID { return .process(pid) }
            return .connection(uniqueName)
        case .unknown:
            return .connection(uniqueName)
        default:
            return .owner(identity.owner)
        }
    }
}
