/// How long a task lives without its job, chosen at Start with the `lifetime` key.
public enum Lifetime: String, CaseIterable, Sendable, Codable {
    /// Lives while it keeps being updated: stalls after `stall-seconds`, fails after
    /// `lease-seconds` without an update. The default, and what makes one-shot
    /// `gdbus call` scripts work.
    case lease
    /// Bound to the connection that called Start: fails at once when it leaves the bus.
    case caller
    /// Lives until finished or removed; stalls like the others.
    case persistent
}

/// What a parent does when one of its children fails (Start key `child-failure`).
public enum ChildFailurePolicy: String, CaseIterable, Sendable, Codable {
    /// The parent fails too, with a message naming the child.
    case fail
    /// The failed child no longer counts towards the parent.
    case ignore
}

/// A request from a user interface to the job, sent as a signal on the task object.
public enum TaskRequest: Sendable, Equatable {
    case cancelRequested
    case pauseRequested
    case resumeRequested
}
