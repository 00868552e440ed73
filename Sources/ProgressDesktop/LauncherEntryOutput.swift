import CGLib
import ProgressBus
import ProgressModel
import ProgressCore
import ProgressDaemon

/// LauncherEntry out: progressd's tasks on the dock. For every app id with tasks (not the
/// `launcher/` tasks that came in through LauncherEntryInput, and not an application that
/// reports itself right now) it emits `Update('application://ID.desktop', a{sv})` with
/// libunity's types: `progress` d (the app's aggregate fraction), `progress-visible` b,
/// `count` x (active tasks), `count-visible` b, `urgent` b (a failed task lingers).
/// When the app has no task left it sends progress-visible and count-visible false once
/// and forgets the app. Signals are coalesced per app: at most the task signal rate, and
/// never closer than 32 ms (Plank's merge window). On stop every entry it set is cleared.
/// `Query()` on the entry's object (`/org/progressd/Progress1/launcherentry/<escaped id>`,
/// the path the signals come from) answers the full current state.
public final class LauncherEntryOutput: ChangeOutput {
    static let basePath = "/org/progressd/Progress1/launcherentry"
    static let xml = """
        <node><interface name="com.canonical.Unity.LauncherEntry">
          <method name="Query"><arg type="a{sv}" direction="out"/></method>
          <signal name="Update"><arg type="s" name="app_uri"/><arg type="a{sv}" name="properties"/></signal>
        </interface></node>
        """
    static let signals = SignalTable(interface: LauncherEntryInput.interface, ["Update"])

    /// What a dock shows for one application.
    struct DockState: Equatable {
        var progress = 0.0
        var progressVisible = false
        var count: Int64 = 0
        var urgent = false
        var isEmpty: Bool { !progressVisible && count == 0 && !urgent }
    }

    struct App {
        var sent = DockState()
        var lastSent: Int64?
        /// The entry's object, for Query, while the app has an entry.
        var object: ExportedObject?
    }

    private let context: DaemonContext
    private let intervalMicros: Int64
    /// The live `launcher/` tasks (what applications report themselves, through
    /// LauncherEntryInput) and their app ids: those apps' entries are theirs, not re-emitted.
    private var reportedTasks: [TaskName: String] = [:]
    private var reportedApps: [String: Int] = [:]
    private var apps: [String: App] = [:]
    /// Which tasks belong to which app id, kept from the changes, so a flush reads only
    /// the tasks of the apps that changed.
    private var tasksOfApp: [String: Set<TaskName>] = [:]
    private var appOfTask: [TaskName: String] = [:]
    private var dirty: Set<String> = []
    private lazy var timer = MainLoopTimer(clock: context.clock) { [unowned self] in self.flushDue() }
    /// The entry objects' interface, its table checked against the XML above (set last
    /// in init: its rows are bound to this output).
    private var interface: ExportedInterface?
    /// Signals sent, for tests reading the log and for the report.
    public private(set) var signalsSent = 0

    public init(context: DaemonContext) throws(DaemonError) {
        self.context = context
        intervalMicros = max(32_000, context.limits.signalIntervalMicros)
        let descriptions = try InterfaceDescriptions(xml: Self.xml, what: "the LauncherEntry Query XML")
        let info = try descriptions.interface(LauncherEntryInput.interface)
        // The signal table and the XML above must agree, as every interface's do.
        try Self.signals.check(against: info)
        interface = try ExportedInterface(
            info, keeping: descriptions,
            methods: Self.methods.map { handler in { [unowned self] call in handler(self, call.methodCall()) } })
    }

    /// Query, the one method of an entry's object.
    static let methods = MethodTable<@Sendable (LauncherEntryOutput, MethodCall) -> Void>(
        interface: LauncherEntryInput.interface, [("Query", { $0.query($1) })])

    /// While no task counts for an app (none has an app id, none reports itself), only what
    /// can make one count matters: other values change no dock's entry.
    public var interest: TaskProperties {
        appOfTask.isEmpty && reportedTasks.isEmpty ? [.appId, .parent, .state] : .all
    }

    public func publish(_ batch: ChangeBatch) {
        var tracked = false
        defer { if tracked { context.stream.interestChanged(self) } }
        for change in batch.changes {
            // Which app a task counts for follows its app id, parent and state only: any
            // other change of a task that counts for an app changes that app's entry.
            if change.kind == .updated && !change.isRestart
                && change.properties.isDisjoint(with: [.appId, .parent, .state]) {
                let isReported = change.name.text.hasPrefix("launcher/")
                if let appId = isReported ? reportedTasks[change.name] : appOfTask[change.name] { markDirty(appId) }
                continue
            }
            // What came in from a dock protocol never goes back out to the docks.
            tracked = true
            let before = change.name.text.hasPrefix("launcher/") ? trackReported(change) : appOfTask[change.name]
            if !change.name.text.hasPrefix("launcher/") { track(change) }
            let after = appOfTask[change.name]
            for appId in Set([before, after].compactMap({ $0 })) { markDirty(appId) }
        }
    }

    /// Notes whether a `launcher/` task is live (its app reports itself), as the change left
    /// it; returns its app id.
    private func trackReported(_ change: TaskChange) -> String? {
        let name = change.name
        let task = change.task
        let live = change.kind != .removed && task.isLive && !task.appId.isEmpty ? task.appId : nil
        let old = reportedTasks[name]
        guard old != live else { return live }
        if let old {
            reportedApps[old] = (reportedApps[old] ?? 1) > 1 ? reportedApps[old]! - 1 : nil
        }
        if let live { reportedApps[live, default: 0] += 1 }
        reportedTasks[name] = live
        return live ?? old
    }

    private func isReported(_ appId: String) -> Bool { reportedApps[appId] != nil }

    public func stop() { clearAll() }

    /// Notes which app the task counts for, as the change left it.
    private func track(_ change: TaskChange) {
        let name = change.name
        if name.text.hasPrefix("launcher/") { return }
        let task = change.task
        let appId = change.kind != .removed && task.parent == nil && !task.appId.isEmpty ? task.appId : nil
        if let old = appOfTask[name], old != appId {
            tasksOfApp[old]?.remove(name)
            if tasksOfApp[old]?.isEmpty == true { tasksOfApp[old] = nil }
        }
        appOfTask[name] = appId
        if let appId { tasksOfApp[appId, default: []].insert(name) }
    }

    private func markDirty(_ appId: String) {
        dirty.insert(appId)
        let last = apps[appId]?.lastSent ?? .min
        timer.arm(at: last == .min ? context.clock.monotonicMicros : last + intervalMicros)
    }

    /// The app's entry: the summary of its top-level tasks by `Aggregate(app_id)`'s rule
    /// (`TaskSummary`), over all of them but the `launcher/` tasks, since what came in from a
    /// dock never goes back out to one. A fraction shows while a live task is determinate; a
    /// failed task lingering makes the entry urgent.
    func state(of appId: String, in tasks: TaskView) -> DockState {
        let summary = TaskSummary(of: (tasksOfApp[appId] ?? []).lazy.compactMap { tasks.task($0) })
        var state = DockState()
        state.count = Int64(summary.active)
        state.progressVisible = summary.active > 0 && !summary.indeterminate
        state.progress = summary.fraction
        state.urgent = summary.state == "failed"
        return state
    }

    private func flushDue() {
        context.read(.tasks([])) { flushDue($0) }
    }

    /// The entries that fell due, as a read shows the tasks (held values applied first).
    private func flushDue(_ tasks: TaskView) {
        let now = context.clock.monotonicMicros
        for appId in dirty.sorted() {
            let app = apps[appId] ?? App()
            if let last = app.lastSent, now - last < intervalMicros {
                timer.arm(at: last + intervalMicros)
                continue
            }
            dirty.remove(appId)
            var state = isReported(appId) ? DockState() : state(of: appId, in: tasks)
            if state.isEmpty && apps[appId] == nil { continue }
            if state == app.sent && app.lastSent != nil { if state.isEmpty { forget(appId) }; continue }
            if state.isEmpty { state.progress = app.sent.progress }
            send(appId, state, now: now)
            if state.isEmpty { forget(appId) }
        }
    }

    private func send(_ appId: String, _ state: DockState, now: Int64) {
        var app = apps[appId] ?? App()
        if app.object == nil, let interface {
            // Refused only if another object of this connection has the path: the signal still goes.
            app.object = try? ExportedObject(on: context.connection, path: path(of: appId), [interface])
        }
        app.sent = state
        app.lastSent = now
        apps[appId] = app
        context.signals.broadcast(
            Self.signals["Update"], path: path(of: appId),
            Variant.tuple([Variant.string("application://\(appId).desktop"), Self.properties(state)]))
        signalsSent += 1
    }

    private func forget(_ appId: String) {
        guard let app = apps.removeValue(forKey: appId) else { return }
        app.object?.end()
    }

    /// libunity's keys and types exactly: count x, count-visible b, progress d,
    /// progress-visible b, urgent b.
    static func properties(_ state: DockState) -> OpaquePointer {
        Variant.container("a{sv}") { builder in
            Variant.addEntry(builder, "count", g_variant_new_int64(gint64(state.count)))
            Variant.addEntry(builder, "count-visible", g_variant_new_boolean(state.count > 0 ? 1 : 0))
            Variant.addEntry(builder, "progress", g_variant_new_double(state.progress))
            Variant.addEntry(builder, "progress-visible", g_variant_new_boolean(state.progressVisible ? 1 : 0))
            Variant.addEntry(builder, "urgent", g_variant_new_boolean(state.urgent ? 1 : 0))
        }
    }

    private func query(_ call: MethodCall) {
        guard let appId = apps.first(where: { self.path(of: $0.key) == call.path })?.key else {
            return call.fail("org.freedesktop.DBus.Error.UnknownObject", "no launcher entry at \(call.path)")
        }
        // The state now, not the last one sent: a reply never shows an older value.
        let state = isReported(appId) ? DockState() : context.read(.tasks([])) { self.state(of: appId, in: $0) }
        call.reply(Variant.tuple([Self.properties(state)]))
    }

    /// The object path of an app's entry, its id escaped as task paths are.
    func path(of appId: String) -> String { Self.basePath + "/" + ObjectPathElement.escape(appId) }

    /// On exit: a cleared entry for every app progressd set, so no dock keeps a stale bar.
    func clearAll() {
        timer.cancel()
        let now = context.clock.monotonicMicros
        for appId in apps.keys.sorted() {
            var cleared = DockState()
            cleared.progress = apps[appId]?.sent.progress ?? 0
            send(appId, cleared, now: now)
            forget(appId)
        }
        // The daemon is stopping: the cleared entries go out before the connection does.
        g_dbus_connection_flush_sync(context.connection, nil, nil)
    }
}
