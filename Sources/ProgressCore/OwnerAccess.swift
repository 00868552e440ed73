import ProgressModel

/// The daemon's access rules: who may do what to whose task. Pure: it sees the command, the
/// caller's identity (which the adapter learned from the bus before the call was handled)
/// and the tasks, and refuses with AccessDenied, naming who may.
///
/// - A task belongs to the identity that started it (`ProgressTask.owner`).
/// - The host (all of the user's unconfined processes, one identity) may change and
///   request anything: it is the user's own software, and a script's one-shot `gdbus`
///   calls must keep driving the task the script started.
/// - A confined identity (a Flatpak app, a Snap, another user, an unknown caller) may
///   change, request and start again only its own tasks.
/// - A sandboxed app's tasks carry its app id: Start forces `app-id` to it when the key is
///   omitted, and any other value is refused, on Start and on Update. An identity with no
///   app id of its own (another user, an unknown caller) may not set `app-id` at all.
/// - A live `caller` task whose bound connection is still on the bus is re-attached only by
///   that connection, or by a Start with `take-over: true` (from an identity that may
///   change the task); a job whose old connection is gone re-attaches as always.
/// - Reads are not confined: every identity reads every task (see the README's "Who may do
///   what"). Broadcast signals carry every task to any listener, xdg-dbus-proxy passes them
///   to a sandbox that may talk to progressd, so hiding tasks from replies would protect
///   nothing. Confinement is about what an app may change.
/// - Jobs of system services (`system/<service>/<id>`) belong to the system identity, which
///   only the system-bus bridge speaks as: no session client, not even the host, may start a
///   name under `system/` or change, finish, fail or remove such a task (the service is its
///   truth). Requests are let through: the bridge passes a cancel request to a service that
///   offers one, and the store refuses it for a task that is not cancellable.
/// - A bridge (LauncherEntry, KDE job views) speaks for the client behind it, whose
///   identity it learned as a Progress1 call's is learned: the same rules hold. The system
///   bridge speaks as the system identity. Timers, lost connections, restore and the
///   daemon's own actions are not checked.
public struct OwnerAccess: AccessPolicy {
    /// The namespace of the system identity's tasks.
    public static let systemPrefix = "system/"

    public init() {}

    public func admit(
        _ command: TaskCommand, by origin: ChangeOrigin, tasks: TaskView
    ) throws(ProgressError) -> TaskCommand {
        guard let caller = origin.speaker else { return command }
        switch command {
        case .start(let name, var update):
            update.appId = try appId(update.appId, forcedFor: caller, start: true)
            if let task = tasks.task(name) {
                // An ended task starts afresh under its new owner; only the host may take
                // another identity's name over that way.
                try mayChange(name, task.owner, caller, "start again")
                try mayReattach(task, caller, update)
            }
            if name.text.hasPrefix(Self.systemPrefix), caller.identity.owner != .system {
                throw .accessDenied(
                    "task name \(quoted(name.text)) is refused: names under \(quoted(Self.systemPrefix)) "
                        + "are the jobs of system services, which only progressd's system-bus bridge starts")
            }
            return .start(name, update)
        case .update(let name, var update):
            update.appId = try appId(update.appId, forcedFor: caller, start: false)
            if let owner = tasks.owner(of: name) { try mayChange(name, owner, caller, "update") }
            return .update(name, update)
        case .updateMany(let entries):
            // Every entry is checked before any is applied: a refused batch changes nothing.
            var admitted: [NamedUpdate] = []
            for (index, entry) in entries.enumerated() {
                do throws(ProgressError) {
                    var update = entry.update
                    update.appId = try appId(update.appId, forcedFor: caller, start: false)
                    if let owner = tasks.owner(of: entry.name) { try mayChange(entry.name, owner, caller, "update") }
                    admitted.append(NamedUpdate(name: entry.name, update: update))
                } catch {
                    throw error.prefixed("entry \(index) (none of the entries were applied)")
                }
            }
            return .updateMany(admitted)
        case .setFraction(let name, _), .pulse(let name), .finish(let name), .fail(let name, _), .remove(let name):
            if let owner = tasks.owner(of: name) { try mayChange(name, owner, caller, verb(command)) }
            return command
        case .requestCancel(let name), .requestPause(let name), .requestResume(let name):
            // A system job's requests go to its service through the bridge, whoever asks.
            if let owner = tasks.owner(of: name), owner != .system { try mayChange(name, owner, caller, verb(command)) }
            return command
        }
    }

    /// Whether `caller` may act on the task `name`, owned by `owner`: the host may act on any
    /// task, anyone else on its own only. Only the owner is read: every call of a job passes here.
    private func mayChange(
        _ name: TaskName, _ owner: TaskOwner, _ caller: ClientID, _ action: String
    ) throws(ProgressError) {
        let who = caller.identity.owner
        if owner == .system, who != .system {
            throw .accessDenied(
                "task \(quoted(name.text)) belongs to \(owner); only its service may \(action) it (progressd "
                    + "reads it from the system bus), and connection \(caller) is \(who)")
        }
        guard who.isConfined, who != owner else { return }
        let whoMay = owner == .host ? "only the host" : "only \(owner) and the host"
        throw .accessDenied(
            "task \(quoted(name.text)) belongs to \(owner); \(whoMay) may \(action) it, and connection "
                + "\(caller) is \(who)")
    }

    private func mayReattach(_ task: ProgressTask, _ caller: ClientID, _ update: TaskUpdate) throws(ProgressError) {
        guard task.isLive, task.lifetime == .caller, let bound = task.boundConnection, bound != caller,
              update.takeOver != true else { return }
        throw .accessDenied(
            "task \(quoted(task.name.text)) is bound to connection \(bound), which is still on the bus; only that "
                + "connection may start it again, or a Start with take-over: true")
    }

    /// The app id a call may set: a sandboxed app's own (forced on Start when omitted).
    private func appId(_ given: String?, forcedFor caller: ClientID, start: Bool) throws(ProgressError) -> String? {
        let who = caller.identity.owner
        // The system bridge names the front end (GNOME Software, Discover) where it knows it.
        guard who.isConfined, who != .system else { return given }
        guard let own = who.sandboxAppId else {
            if let given {
                throw .accessDenied(
                    "app-id \(quoted(given)) is refused: connection \(caller) is \(who), and only the user's host "
                        + "processes and sandboxed apps (their own id) may set an app-id")
            }
            return nil
        }
        if let given, !Self.appId(given, belongsTo: who) {
            throw .accessDenied(
                "app-id \(quoted(given)) is refused: connection \(caller) is \(who), whose tasks carry app-id "
                    + "\(quoted(own)) (omit the key, or give that)")
        }
        return given ?? (start ? own : nil)
    }

    /// Whether a sandboxed owner may name `appId`: a Flatpak its id (with or without
    /// `.desktop`); a Snap its name, or a desktop file id snapd installs for it (`NAME_APP`).
    static func appId(_ appId: String, belongsTo owner: TaskOwner) -> Bool {
        let bare = appId.hasSuffix(".desktop") ? String(appId.dropLast(8)) : appId
        switch owner {
        case .flatpak(let id): return bare == id
        case .snap(let name): return bare == name || bare.hasPrefix(name + "_")
        default: return false
        }
    }

    private func verb(_ command: TaskCommand) -> String {
        switch command {
        case .setFraction, .pulse: "update"
        case .finish: "finish"
        case .fail: "fail"
        case .remove: "remove"
        case .requestCancel: "request cancelling of"
        case .requestPause: "request pausing of"
        case .requestResume: "request resuming of"
        default: "change"
        }
    }
}
