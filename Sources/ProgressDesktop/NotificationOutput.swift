import CGLib
import ProgressBus
import ProgressModel
import ProgressCore
import ProgressPolicies
import ProgressDaemon

/// Desktop notifications (org.freedesktop.Notifications) for outcomes a person may have
/// missed, and in `progress` mode for running tasks.
///
/// Rules (README, "Desktop integration"), for top-level tasks:
/// * A failure always: urgency critical, the failure message as the body.
/// * A finish of a task that ran at least `notifyAfterSeconds` (default 10), or whose
///   progress notification is showing; none for a cancel, and none for a shorter task.
/// * Outcomes in a burst (NotificationBursts): an app's first outcome is notified alone;
///   the next ones within 5 seconds of the last are summed up in one notification ("12
///   tasks failed", the first five titles and how many more) that replaces the first in
///   place, updated at most once a second; at most 8 apps at a time have their own.
/// * Client text goes in plain: the summary as the spec has it, the body escaped (`&`,
///   `<`, `>`) when the server advertises `body-markup` (or fails to say), so a
///   client's text never becomes a link, an image or a tag; every client piece isolated
///   (ClientText). The daemon adds no markup.
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

    private let context: DaemonContext
    private let mode: Mode
    private let notifyAfterMicros: Int64
    private var shown: [TaskName: ShownNotification] = [:]
    private var serverPresent = false
    private var watch: UInt32 = 0
    private var subscriptions: [UInt32] = []
    private var due: Set<TaskName> = []
    /// Ended tasks whose outcome was told. Outputs hear a group of batches after the store
    /// has moved on (group commit delivers a Start and its Fail together), so a task that
    /// ended is seen ended through every change of the group: its outcome is told once.
    private var toldOutcomes: Set<TaskName> = []
    private var bursts = NotificationBursts()
    /// Each open burst's notification, by app.
    private var summaries: [String: ShownNotification] = [:]
    private var dueSummaries: Set<String> = []
    /// Whether the server reads markup in bodies; nil until GetCapabilities answers, when
    /// bodies are escaped too, since escaping is the safe error.
    private var bodyMarkup: Bool?
    /// Notifications made while GetCapabilities is out, sent once it answers (nil when no
    /// question is out): a server that shows bodies as text gets them unescaped from the first.
    private var waitingForCapabilities: [() -> Void]?
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
                NotificationOutput.from(userData).serverAppeared()
            },
            { _, _, userData in
                assertOnMainLoop()
                NotificationOutput.from(userData).serverGone()
            }, userData, nil)
        for member in ["ActionInvoked", "NotificationClosed"] {
            subscriptions.append(g_dbus_connection_signal_subscribe(
                context.connection, Self.serverName, Self.serverName, member, Self.serverPath, nil,
                G_DBUS_SIGNAL_FLAGS_NONE,
                { _, _, _, _, member, parameters, userData in
                    assertOnMainLoop()
                    NotificationOutput.from(userData).received(String(cString: member!), parameters!)
                }, userData, nil))
        }
    }

    /// Outcomes follow the state; whether a task is notified at all, its parent. Progress
    /// notifications follow everything shown in them.
    public var interest: TaskProperties {
        switch mode {
        case .none: []
        case .outcomes: [.state, .parent]
        case .progress: .all
        }
    }

    public func publish(_ batch: ChangeBatch) {
        // Restored outcomes were notified by the run that saw them happen.
        guard mode != .none, !batch.origin.isRestore else { return }
        for change in batch.changes { consider(change) }
    }

    /// Judged by the task as the change left it, not as it is now: a Start and a Fail in
    /// one group are a start, then one outcome.
    private func consider(_ change: TaskChange) {
        let now = context.clock.monotonicMicros
        guard change.kind != .removed else {
            due.remove(change.name)
            toldOutcomes.remove(change.name)
            if let note = shown.removeValue(forKey: change.name), !note.outcome, note.id != 0 { close(note.id) }
            return
        }
        let task = change.task
        if task.isLive || change.isRestart { toldOutcomes.remove(change.name) }
        guard task.parent == nil, serverPresent else { return }
        if change.properties.contains(.state) && task.ownState.isOutcome {
            due.remove(change.name)
            guard toldOutcomes.insert(change.name).inserted else { return }
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
            told(task, now: now)
        case .finished where ran >= notifyAfterMicros || shown[task.name].map({ $0.id != 0 || $0.inFlight }) == true:
            // Long enough to have been missed, or its progress is on screen: the outcome replaces it.
            told(task, now: now)
        default:
            // A cancel, or a short finish: its running notification, if any, goes.
            if let note = shown.removeValue(forKey: task.name), note.id != 0 { close(note.id) }
        }
    }

    /// An outcome to tell: alone, when it begins its app's burst, else in the burst's summary.
    private func told(_ task: ProgressTask, now: Int64) {
        let placement = bursts.add(
            failed: task.ownState == .failed, title: task.displayTitle, appId: task.appId, now: now)
        summaries = summaries.filter {
            bursts.burst($0.key) != nil || $0.value.inFlight || dueSummaries.contains($0.key)
        }
        switch placement {
        case .alone(let app):
            // The summary, if the burst grows, replaces this notification once its id is known.
            summaries[app] = ShownNotification(inFlight: true)
            send(task, now: now, burstApp: app)
        case .summary(let app):
            // Its own progress notification gives way to the summary.
            if let note = shown.removeValue(forKey: task.name), note.id != 0 { close(note.id) }
            sendSummary(app, now: now)
        }
    }

    /// The burst's notification, now or (at most once a second) when it is due.
    private func sendSummary(_ app: String, now: Int64) {
        guard serverPresent, let burst = bursts.burst(app) else { return }
        var note = summaries[app] ?? ShownNotification()
        if note.inFlight {
            note.again = true
            summaries[app] = note
            return
        }
        if note.lastSent != .min && now - note.lastSent < 1_000_000 {
            dueSummaries.insert(app)
            timer.arm(at: note.lastSent + 1_000_000)
            return
        }
        dueSummaries.remove(app)
        note.inFlight = true
        note.lastSent = now
        summaries[app] = note
        let (title, body) = context.texts.burst(burst)
        notify(
            replacing: note.id, summary: title, body: body, critical: burst.failed > 0, appId: app, value: nil,
            actions: [], timeout: -1
        ) { output, result in output.summaryReplied(app, id: output.notificationId(result)) }
    }

    /// The burst's notification (or the outcome that began it) was answered.
    private func summaryReplied(_ app: String, id: UInt32) {
        guard var note = summaries[app] else { return }
        note.inFlight = false
        note.id = id
        let again = note.again
        note.again = false
        summaries[app] = note
        if again { sendSummary(app, now: context.clock.monotonicMicros) }
    }

    /// The notifications that fell due, as a read shows the tasks (held values applied first).
    private func sendDue() {
        context.read(.tasks([])) { sendDue($0) }
    }

    private func sendDue(_ tasks: TaskView) {
        let now = context.clock.monotonicMicros
        for app in dueSummaries.sorted() { sendSummary(app, now: now) }
        for name in due.sorted(by: { $0.text < $1.text }) {
            guard let task = tasks.task(name), task.isLive else {
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
    private func send(_ task: ProgressTask, now: Int64, burstApp: String? = nil) {
        var note = shown[task.name] ?? ShownNotification()
        if shown[task.name] == nil && task.isLive && shown.count >= Self.maxShown { return }
        note.lastSent = now
        note.outcome = task.ownState.isOutcome
        if let burstApp { note.burstApp = burstApp }
        if note.inFlight {
            note.again = true
            shown[task.name] = note
            return
        }
        note.inFlight = true
        shown[task.name] = note
        let failed = task.ownState == .failed
        let body = failed && !task.message.isEmpty
            ? ClientText.isolated(task.message) : context.texts.accessibleText(of: task)
        // The percent the task's label shows, so the bar and the text agree.
        let value = task.isLive && !task.indeterminate ? task.wholePercent : nil
        let actions = task.isLive && task.cancellable && !task.cancelRequested ? ["cancel", "Cancel"] : []
        let name = task.name
        let burstApp = note.burstApp
        notify(
            replacing: note.id, summary: ClientText.isolated(task.displayTitle), body: body, critical: failed,
            appId: task.appId, value: value, actions: actions, timeout: task.isLive ? 0 : -1
        ) { output, result in output.replied(name, burstApp: burstApp, result) }
    }

    /// One asynchronous Notify; `done` runs with its reply if this output still exists.
    /// `body` is plain text: escaped here for a server that reads markup.
    private func notify(
        replacing id: UInt32, summary: String, body: String, critical: Bool, appId: String, value: Int?,
        actions: [String], timeout: Int32, done: @escaping (NotificationOutput, Result<OpaquePointer, BusError>) -> Void
    ) {
        guard waitingForCapabilities == nil else {
            return waitingForCapabilities!.append { [unowned self] in
                notify(replacing: id, summary: summary, body: body, critical: critical, appId: appId, value: value,
                       actions: actions, timeout: timeout, done: done)
            }
        }
        var hints: [(String, OpaquePointer)] = [("urgency", g_variant_new_byte(critical ? 2 : 1))]
        if !appId.isEmpty { hints.append(("desktop-entry", g_variant_new_string(appId))) }
        if let value { hints.append(("value", g_variant_new_int32(Int32(value)))) }
        let parameters = Variant.tuple([
            g_variant_new_string("progressd"), g_variant_new_uint32(id), g_variant_new_string(""),
            g_variant_new_string(summary),
            g_variant_new_string(bodyMarkup == false ? body : ClientText.escapedMarkup(body)),
            Variant.strings(actions),
            Variant.container("a{sv}") { builder in
                for (key, value) in hints { Variant.addEntry(builder, key, value) }
            },
            g_variant_new_int32(timeout),
        ])
        call("Notify", parameters, replyType: "(u)", done)
    }

    /// An asynchronous call to the server; `done` runs with its reply if this output still exists.
    private func call(
        _ method: String, _ parameters: OpaquePointer?, replyType: String,
        _ done: @escaping (NotificationOutput, Result<OpaquePointer, BusError>) -> Void
    ) {
        BusCall.call(
            context.connection, destination: Self.serverName, path: Self.serverPath, interface: Self.serverName,
            method: method, parameters, replyType: replyType
        ) { [weak self] result in
            if let self { done(self, result) }
        }
    }

    /// A Notify reply's id (0 when it failed, which is logged once).
    private func notificationId(_ result: Result<OpaquePointer, BusError>) -> UInt32 {
        switch result {
        case .success(let reply): return Variant.uint32Child(reply, 0)
        case .failure(let failure):
            if !loggedFailure { Log.warning("notifications: Notify failed: \(failure) (not logged again)") }
            loggedFailure = true
            return 0
        }
    }

    /// The server is there: what it can do is asked first (body-markup).
    private func serverAppeared() {
        serverPresent = true
        bodyMarkup = nil
        waitingForCapabilities = []
        call("GetCapabilities", nil, replyType: "(as)") { output, result in
            switch result {
            case .success(let reply): output.bodyMarkup = Variant.stringsChild(reply, 0).contains("body-markup")
            case .failure(let failure):
                Log.warning("notifications: GetCapabilities failed: \(failure); bodies are escaped")
            }
            let waiting = output.waitingForCapabilities ?? []
            output.waitingForCapabilities = nil
            waiting.forEach { $0() }
        }
    }

    private func replied(_ name: TaskName, burstApp: String?, _ result: Result<OpaquePointer, BusError>) {
        let id = notificationId(result)
        guard var note = shown[name] else {
            // The task went while the call was out: its notification goes too.
            close(id)
            if let burstApp { summaryReplied(burstApp, id: 0) }
            return
        }
        note.inFlight = false
        if id != 0 { note.id = id }
        let again = note.again
        note.again = false
        shown[name] = note
        if again, let task = context.read(.tasks([]), { $0.task(name) }) {
            send(task, now: context.clock.monotonicMicros)
        }
        if note.outcome && !again {
            shown[name] = nil
            if let burstApp { summaryReplied(burstApp, id: id) }
        }
    }

    private func received(_ member: String, _ parameters: OpaquePointer) {
        let id = Variant.uint32Child(parameters, 0)
        if member == "NotificationClosed", let app = summaries.first(where: { $0.value.id == id })?.key {
            summaries[app]?.id = 0
            return
        }
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
        BusCall.send(
            context.connection, destination: Self.serverName, path: Self.serverPath, interface: Self.serverName,
            method: "CloseNotification", Variant.tuple([g_variant_new_uint32(id)]))
    }

    /// No server: nothing waits for one. A server that comes later hears only new outcomes.
    private func serverGone() {
        serverPresent = false
        waitingForCapabilities = nil
        shown = [:]
        due = []
        bursts = NotificationBursts()
        summaries = [:]
        dueSummaries = []
        timer.cancel()
    }

    public func stop() {
        timer.cancel()
        for subscription in subscriptions { g_dbus_connection_signal_unsubscribe(context.connection, subscription) }
        subscriptions = []
        if watch != 0 { g_bus_unwatch_name(watch) }
        watch = 0
    }

    private static func from(_ userData: gpointer?) -> NotificationOutput {
        Unmanaged<NotificationOutput>.fromOpaque(userData!).takeUnretainedValue()
    }
}
