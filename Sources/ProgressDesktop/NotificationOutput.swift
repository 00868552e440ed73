import CGLib
import ProgressBus
import ProgressCore
import ProgressDaemon

/// Desktop notifications (org.freedesktop.Notifications) for outcomes a person may have
/// missed, and in `progress` mode for running tasks.
///
/// Rules (README, "Desktop integration"), for top-level tasks:
/// * A failure always: urgency critical, the failure message as the body.
/// * A finish of a task that ran at least `notifyAfterSeconds` (default 10), or whose
///   progress notification is showing; none for a cancel, and none for a shorter task.
/// * `progress` mode: one notification per running task, updated in place (replaces_id)
///   at most once a second, with the `value` hint as int32 0–100, and replaced by the
///   task's outcome (or closed, when there is none to show).
/// * A cancellable task's running notification has a Cancel action; ActionInvoked asks the
///   job to cancel, the same request as RequestCancel.
/// * Hints: `desktop-entry` (the app id), `urgency` (byte). Summary is the title (or the
///   name), body the task's text in the daemon's locale.
/// * Every call is asynchronous, from the daemon's connection, which also receives the
///   server's unicast ActionInvoked and NotificationClosed. Nothing is sent or queued
///   while no server owns the name; one call per task is in flight at most, and the
///   newest state is sent after it (so nothing grows without bound).
public final class NotificationOutput: ChangeOutput {
    public enum Mode: String, CaseIterable, Sendable {
        case none, outcomes, progress
    }

    static let serverName = "org.freedesktop.Notifications"
    static let serverPath = "/org/freedesktop/Notifications"
    static let origin = ChangeOrigin.daemon("notifications")
    /// Notifications open at once at most; more running tasks go without one.
    static let maxShown = 64

    /// What the server shows for one task.
    struct Shown {
        var id: UInt32 = 0
        var inFlight = false
        /// The task changed while a call was in flight: send its newest state after.
        var again = false
        var lastSent: Int64 = .min
        var outcome = false
    }

    private let context: DaemonContext
    private let mode: Mode
    private let notifyAfterMicros: Int64
    private var shown: [TaskName: Shown] = [:]
    private var serverPresent = false
    private var watch: UInt32 = 0
    private var subscriptions: [UInt32] = []
    private var due: Set<TaskName> = []
    private lazy var timer = MainLoopTimer(clock: context.clock) { [unowned self] in self.sendDue() }
    private var loggedFailure = false

    public init(context: DaemonContext, mode: Mode, notifyAfterSeconds: Double) {
        self.context = context
        self.mode = mode
        notifyAfterMicros = Int64(notifyAfterSeconds * 1_000_000)
        guard mode != .none else { return }
        let userData = Unmanaged.passUnretained(self).toOpaque()
        watch = g_bus_watch_name_on_connection(
            context.connection, Self.serverName, G_BUS_NAME_WATCHER_FLAGS_NONE,
            { _, _, _, userData in
                assertOnMainLoop()
                NotificationOutput.from(userData).serverPresent = true
            },
            { _, _, userData in
                assertOnMainLoop()
                NotificationOutput.from(userData).serverGone()
            }, userData, nil)
        for member in ["ActionInvoked", "NotificationClosed"] {
            subscriptions.append(g_dbus_connection_signal_subscribe(
                context.connection, Self.serverName, Self.serverName, member, Self.serverPath, nil, G_DBUS_SIGNAL_FLAGS_NONE,
                { _, _, _, _, member, parameters, userData in
                    assertOnMainLoop()
                    NotificationOutput.from(userData).received(String(cString: member!), parameters!)
                }, userData, nil))
        }
    }

    public func publish(_ batch: ChangeBatch) {
        // Restored outcomes were notified by the run that saw them happen.
        guard mode != .none, batch.origin != .restore else { return }
        for change in batch.changes { consider(change) }
    }

    private func consider(_ change: TaskChange) {
        let now = context.clock.monotonicMicros
        guard let task = context.store.task(change.name), change.kind != .removed else {
            due.remove(change.name)
            if let note = shown.removeValue(forKey: change.name), !note.outcome, note.id != 0 { close(note.id) }
            return
        }
        guard task.parent == nil, serverPresent else { return }
        if change.properties.contains(.state) && task.ownState.isOutcome {
            due.remove(change.name)
            outcome(task, now: now)
        } else if mode == .progress && task.isLive {
            let last = shown[change.name]?.lastSent ?? .min
            if last == .min || now - last >= 1_000_000 {
                send(task, now: now)
            } else {
                due.insert(change.name)
                timer.arm(at: last + 1_000_000)
            }
        }
    }

    private func outcome(_ task: ProgressTask, now: Int64) {
        // By the wall clock the task was created by (a restart creates it afresh): a clock
        // step may misjudge one notification, and no table of start times per task is kept.
        let ran = context.clock.wallMicros - task.created
        switch task.ownState {
        case .failed:
            send(task, now: now)
        case .finished where ran >= notifyAfterMicros || shown[task.name].map({ $0.id != 0 || $0.inFlight }) == true:
            // Long enough to have been missed, or its progress is on screen: the outcome replaces it.
            send(task, now: now)
        default:
            // A cancel, or a short finish: its running notification, if any, goes.
            if let note = shown.removeValue(forKey: task.name), note.id != 0 { close(note.id) }
        }
    }

    private func sendDue() {
        let now = context.clock.monotonicMicros
        for name in due.sorted(by: { $0.text < $1.text }) {
            guard let task = context.store.task(name), task.isLive else {
                due.remove(name)
                continue
            }
            let last = shown[name]?.lastSent ?? .min
            if last != .min && now - last < 1_000_000 {
                timer.arm(at: last + 1_000_000)
                continue
            }
            due.remove(name)
            send(task, now: now)
        }
    }

    /// One Notify for the task's state now, replacing its notification if it has one.
    private func send(_ task: ProgressTask, now: Int64) {
        var note = shown[task.name] ?? Shown()
        if shown[task.name] == nil && task.isLive && shown.count >= Self.maxShown { return }
        note.lastSent = now
        note.outcome = task.ownState.isOutcome
        if note.inFlight {
            note.again = true
            shown[task.name] = note
            return
        }
        note.inFlight = true
        shown[task.name] = note
        let failed = task.ownState == .failed
        let body = failed && !task.message.isEmpty ? task.message : context.texts.accessibleText(of: task)
        var hints: [(String, OpaquePointer)] = [("urgency", g_variant_new_byte(failed ? 2 : 1))]
        if !task.appId.isEmpty { hints.append(("desktop-entry", g_variant_new_string(task.appId))) }
        if task.isLive, !task.indeterminate, task.wholePercent != nil {
            // The percent the task's label shows, so the bar and the text agree.
            hints.append(("value", g_variant_new_int32(Int32(task.wholePercent ?? 0))))
        }
        let actions = task.isLive && task.cancellable && !task.cancelRequested ? ["cancel", "Cancel"] : []
        let parameters = Variant.tuple([
            g_variant_new_string("progressd"), g_variant_new_uint32(note.id), g_variant_new_string(""),
            // Client pieces isolated, as in every composed text (ClientText).
            g_variant_new_string(ClientText.isolated(task.displayTitle)), g_variant_new_string(ClientText.isolated(body)), Variant.container("as") { builder in for action in actions { Variant.add(builder, Variant.string(action)) } },
            Variant.container("a{sv}") { builder in for (key, value) in hints { Variant.addEntry(builder, key, value) } }, g_variant_new_int32(task.isLive ? 0 : -1),
        ])
        let call = PendingNotify(output: self, name: task.name)
        g_dbus_connection_call(
            context.connection, Self.serverName, Self.serverPath, Self.serverName, "Notify", parameters,
            // No reply type: a Swift string's C pointer would not outlive this call, and
            // GDBus reads it when the reply comes; the type is checked there instead.
            nil, G_DBUS_CALL_FLAGS_NO_AUTO_START, -1, nil,
            { source, result, userData in
                assertOnMainLoop()
                let call = Unmanaged<PendingNotify>.fromOpaque(userData!).takeRetainedValue()
                var error: UnsafeMutablePointer<GError>?
                let reply = g_dbus_connection_call_finish(OpaquePointer(source), result, &error)
                call.output?.replied(call.name, reply, error)
            }, Unmanaged.passRetained(call).toOpaque())
    }

    private func replied(_ name: TaskName, _ reply: OpaquePointer?, _ error: UnsafeMutablePointer<GError>?) {
        guard var note = shown[name] else {
            // The task went while the call was out: its notification goes too.
            if let reply {
                if Variant.typeString(reply) == "(u)" { close(Self.uint32Child(reply, 0)) }
                g_variant_unref(reply)
            }
            if let error { g_error_free(error) }
            return
        }
        note.inFlight = false
        if let reply, Variant.typeString(reply) == "(u)" {
            note.id = Self.uint32Child(reply, 0)
            g_variant_unref(reply)
        } else {
            let message = reply.map { "the reply was \(Variant.typeString($0)), not (u)" } ?? consumeMessage(error)
            if let reply { g_variant_unref(reply) }
            if !loggedFailure { Log.warning("notifications: Notify failed: \(message) (not logged again)") }
            loggedFailure = true
        }
        let again = note.again
        note.again = false
        shown[name] = note
        if again, let task = context.store.task(name) { send(task, now: context.clock.monotonicMicros) }
        if note.outcome && !again { shown[name] = nil }
    }

    private func received(_ member: String, _ parameters: OpaquePointer) {
        let id = Self.uint32Child(parameters, 0)
        guard let name = shown.first(where: { $0.value.id == id })?.key else { return }
        if member == "ActionInvoked", Variant.stringChild(parameters, 1) == "cancel" {
            context.perform(.requestCancel(name), by: Self.origin)
        } else if member == "NotificationClosed" {
            // The id is invalid now; a later update starts a new notification.
            shown[name]?.id = 0
        }
    }

    private func close(_ id: UInt32) {
        guard serverPresent, id != 0 else { return }
        g_dbus_connection_call(
            context.connection, Self.serverName, Self.serverPath, Self.serverName, "CloseNotification",
            Variant.tuple([g_variant_new_uint32(id)]), nil, G_DBUS_CALL_FLAGS_NO_AUTO_START, -1, nil, nil, nil)
    }

    /// No server: nothing waits for one. A server that comes later hears only new outcomes.
    private func serverGone() {
        serverPresent = false
        shown = [:]
        due = []
        timer.cancel()
    }

    public func stop() {
        timer.cancel()
        for subscription in subscriptions { g_dbus_connection_signal_unsubscribe(context.connection, subscription) }
        subscriptions = []
        if watch != 0 { g_bus_unwatch_name(watch) }
        watch = 0
    }

    private static func uint32Child(_ tuple: OpaquePointer, _ index: Int) -> UInt32 {
        let child = Variant.child(tuple, index)
        defer { g_variant_unref(child) }
        return g_variant_get_uint32(child)
    }

    private static func from(_ userData: gpointer?) -> NotificationOutput {
        Unmanaged<NotificationOutput>.fromOpaque(userData!).takeUnretainedValue()
    }
}

/// One Notify in flight: the task it is for, and the output if it still exists.
private final class PendingNotify {
    weak var output: NotificationOutput?
    let name: TaskName
    init(output: NotificationOutput, name: TaskName) {
        self.output = output
        self.name = name
    }
}
