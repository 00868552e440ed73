import ProgressModel

/// Decides whether an origin may run a command, and what of it runs: the front door asks
/// before it changes anything, so a refusal leaves every task as it was. A policy may
/// return the command adjusted (a sandboxed app's `app-id` is forced to its own).
public protocol AccessPolicy {
    func admit(_ command: TaskCommand, by origin: ChangeOrigin, tasks: TaskView) throws(ProgressError) -> TaskCommand
}

/// Every caller may do everything: the policy of a daemon that trusts all its clients, kept
/// for Core's own tests of the front door. The daemon runs `OwnerAccess`.
public struct SameUserAccess: AccessPolicy {
    public init() {}
    public func admit(
        _ command: TaskCommand, by origin: ChangeOrigin, tasks: TaskView
    ) throws(ProgressError) -> TaskCommand {
        command
    }
}
