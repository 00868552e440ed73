import CGLib
import ProgressText
import ProgressBus
import ProgressModel
import ProgressDaemon
import ProgressRender

/// The tasks as a StatusNotifierItem, for the trays of desktops without a job tracker
/// (waybar, the GNOME AppIndicator extension, XFCE, Cinnamon, MATE, LXQt): the ring of the
/// overall progress in the panel, the tasks in its tooltip and in its menu.
///
/// The item exists while a StatusNotifierWatcher is on the bus, a top-level task is live or
/// a failed one lingers, and neither Plasma's job tracker nor progressd's GNOME Shell
/// extension (org.progressd.ShellIndicator) is showing the tasks already. Then
/// progressd owns `org.kde.StatusNotifierItem-PID-1` and registers it with the watcher
/// (again whenever the watcher's owner changes). Otherwise the name is released and hosts
/// drop the item: an idle item is not left as Passive, since hosts differ in showing
/// Passive items (waybar hides them unless told to show them, others keep them), while
/// every host removes an item whose name is gone.
///
/// Redraws are paced: at most one each `interval` (four a second), and only for what
/// changed, so NewIcon follows whole percents and states, not every SetFraction.
public final class TrayOutput: DaemonInput {
    static let interval: Int64 = 250_000
    /// The tasks the menu names at most; the tooltip names fewer (TrayContent.maxLines).
    static let maxMenuTasks = 20

    let context: DaemonContext
    let interfaces: TrayInterfaces
    let textDirection: String
    private let stepAsideForJobTracker: Bool
    private var watches: [UInt32] = []
    private var objects: [ExportedObject] = []
    private var ownerID: UInt32 = 0 { didSet { context.stream.interestChanged(self) } }
    /// The watcher's unique name, while one is on the bus.
    private var watcher: String? { didSet { context.stream.interestChanged(self) } }
    /// Another process's unique name on org.kde.JobViewServer (Plasma), while there is one.
    private var jobTracker: String? { didSet { context.stream.interestChanged(self) } }
    /// The owner of org.progressd.ShellIndicator (the GNOME Shell extension), while there is one.
    private var shellIndicator: String? { didSet { context.stream.interestChanged(self) } }
    /// The top-level tasks the item stands for: live, or failed and lingering.
    private var shown: Set<TaskName> = []
    private var dirty = false
    private var lastRedraw: Int64 = .min
    private lazy var timer = MainLoopTimer(clock: context.clock) { [unowned self] in redraw() }
    private var loggedFailure = false

    /// What hosts read, while the item exists.
    private(set) var content: TrayContent?
    private(set) var menu = TrayMenu()
    private var cachedPixmaps: OpaquePointer?
    /// While drawing is unavailable (cairo, pango or libpng can not be loaded): the standard
    /// icon name hosts show instead of the ring, for the picture shown. nil while the ring draws.
    private var fallbackIconName: String?
    private var loggedDrawingUnavailable = false
    /// The name is ours: hosts may read the item, and signals go out.
    private(set) var registered = false

    /// `stepAsideForJobTracker`: no item while another process owns org.kde.JobViewServer
    /// (true when progressd forwards its tasks there).
    public init(context: DaemonContext, locale: String, stepAsideForJobTracker: Bool) throws(DaemonError) {
        self.context = context
        self.stepAsideForJobTracker = stepAsideForJobTracker
        interfaces = try TrayInterfaces()
        textDirection = (try? LocaleName(locale))?.isRightToLeft == true ? "rtl" : "ltr"
        try checkTables()
    }

    deinit {
        if let cachedPixmaps { g_variant_unref(cachedPixmaps) }
    }

    var userData: gpointer { Unmanaged.passUnretained(self).toOpaque() }
    static func from(_ userData: gpointer?) -> TrayOutput {
        Unmanaged<TrayOutput>.fromOpaque(userData!).takeUnretainedValue()
    }
    private var ownName: String { String(cString: g_dbus_connection_get_unique_name(context.connection)) }

    /// Exports the item and its menu, then watches for a watcher (and for Plasma's tracker).
    /// The restored tasks came down the stream before.
    public func start() throws(DaemonError) {
        objects = try exportObjects()
        // The extension's name first: its owner is known before the watcher's, so an item
        // is never shown at start only to step aside at once.
        watches.append(watch(
            TrayInterfaces.shellIndicatorName, appeared: { output, owner in output.shellIndicatorChanged(owner) },
            vanished: { output in output.shellIndicatorChanged(nil) }))
        watches.append(watch(TrayInterfaces.watcherName, appeared: { output, owner in output.watcherAppeared(owner) },
                             vanished: { output in output.watcherGone() }))
        if stepAsideForJobTracker {
            watches.append(watch(
                TrayInterfaces.jobTrackerName, appeared: { output, owner in output.jobTrackerChanged(owner) },
                vanished: { output in output.jobTrackerChanged(nil) }))
        }
    }

    public func stop() {
        timer.cancel()
        for id in watches { g_bus_unwatch_name(id) }
        watches = []
        release()
        for object in objects { object.end() }
        objects = []
    }

    private final class WatchHandlers {
        let appeared: (TrayOutput, String) -> Void
        let vanished: (TrayOutput) -> Void
        weak var output: TrayOutput?
        init(
            _ output: TrayOutput, _ appeared: @escaping (TrayOutput, String) -> Void,
            _ vanished: @escaping (TrayOutput) -> Void
        ) {
            self.output = output
            self.appeared = appeared
            self.vanished = vanished
        }
    }

    private func watch(
        _ name: String, appeared: @escaping (TrayOutput, String) -> Void, vanished: @escaping (TrayOutput) -> Void
    ) -> UInt32 {
        let handlers = Unmanaged.passRetained(WatchHandlers(self, appeared, vanished)).toOpaque()
        return g_bus_watch_name_on_connection(
            context.connection, name, G_BUS_NAME_WATCHER_FLAGS_NONE,
            { _, _, owner, box in
                assertOnMainLoop()
                let handlers = Unmanaged<WatchHandlers>.fromOpaque(box!).takeUnretainedValue()
                if let output = handlers.output { handlers.appeared(output, String(cString: owner!)) }
            },
            { _, _, box in
                assertOnMainLoop()
                let handlers = Unmanaged<WatchHandlers>.fromOpaque(box!).takeUnretainedValue()
                if let output = handlers.output { handlers.vanished(output) }
            },
            handlers, { box in Unmanaged<WatchHandlers>.fromOpaque(box!).release() })
    }

    // MARK: The change stream

    /// While there is no item and none may be (no watcher, or a job tracker shows the tasks),
    /// only what moves a task in or out of `shown` matters: a value that changes meanwhile
    /// is read from the store by the redraw that the watcher's or tracker's change brings.
    public var interest: TaskProperties { ownerID != 0 || mayExist ? .all : [.state, .parent] }

    public func publish(_ batch: ChangeBatch) {
        var changed = false
        for change in batch.changes { changed = consider(change) || changed }
        // With no item and none allowed (no watcher, or a job tracker or the shell's
        // extension shows the tasks), there is nothing to draw: the change that allows one
        // redraws from `shown`.
        if changed && (ownerID != 0 || shouldExist) { schedule() }
    }

    /// Keeps `shown` up to date for the change's task, as the change left it; true when the
    /// item may look different.
    private func consider(_ change: TaskChange) -> Bool {
        // Whether a task is shown follows its state and parent only: for any other change,
        // a shown task may look different and another is still not shown.
        if change.kind == .updated && !change.isRestart && change.properties.isDisjoint(with: [.state, .parent]) {
            return shown.contains(change.name)
        }
        let task = change.task
        guard change.kind != .removed, task.parent == nil, task.isLive || task.ownState == .failed else {
            return shown.remove(change.name) != nil
        }
        shown.insert(change.name)
        return true
    }

    private func schedule() {
        dirty = true
        let now = context.clock.monotonicMicros
        if lastRedraw == .min || now - lastRedraw >= Self.interval {
            redraw()
        } else {
            timer.arm(at: lastRedraw + Self.interval)
        }
    }

    /// A host could show the item, and nothing else shows the tasks.
    private var mayExist: Bool { watcher != nil && jobTracker == nil && shellIndicator == nil }
    private var shouldExist: Bool { mayExist && !shown.isEmpty }

    /// Brings the item up to date: its name, then what changed, one signal for each.
    private func redraw() {
        guard dirty else { return }
        dirty = false
        lastRedraw = context.clock.monotonicMicros
        guard shouldExist else {
            release()
            return
        }
        // The shown tasks as a read shows them, held values applied first.
        let (tasks, summary) = context.read(.tasks([])) { view in
            (shown.compactMap { view.task($0) }
                .sorted { $0.created < $1.created || ($0.created == $1.created && $0.name.text < $1.name.text) },
             view.summary())
        }
        let new = TrayContent(tasks: tasks, summary: summary, texts: context.texts)
        let old = content
        content = new
        if menu.rebuild(Array(tasks.prefix(Self.maxMenuTasks)), texts: context.texts) && registered {
            emit(TrayInterfaces.menuPath, Self.menuSignals["LayoutUpdated"],
                 Variant.tuple([g_variant_new_uint32(menu.revision), g_variant_new_int32(0)]))
        }
        if new.picture != old?.picture {
            if let cachedPixmaps { g_variant_unref(cachedPixmaps) }
            cachedPixmaps = nil
            fallbackIconName = nil
        }
        guard registered, let old else { return own() }
        if new.picture != old.picture {
            emit(TrayInterfaces.itemPath, Self.itemSignals["NewIcon"], Variant.tuple([]))
            emit(TrayInterfaces.itemPath, Self.itemSignals["NewAttentionIcon"], Variant.tuple([]))
        }
        if new.title != old.title { emit(TrayInterfaces.itemPath, Self.itemSignals["NewTitle"], Variant.tuple([])) }
        if new.title != old.title || new.lines != old.lines {
            emit(TrayInterfaces.itemPath, Self.itemSignals["NewToolTip"], Variant.tuple([]))
        }
        if new.status != old.status {
            emit(TrayInterfaces.itemPath, Self.itemSignals["NewStatus"], Variant.tuple([Variant.string(new.status)]))
        }
    }

    private func emit(_ path: String, _ signal: InterfaceSignal, _ parameters: OpaquePointer) {
        context.signals.broadcast(signal, path: path, parameters)
    }

    /// The icon's pixmaps, drawn when first read after the picture changed; none while
    /// drawing is unavailable, when `iconName` names an icon instead.
    var pixmaps: OpaquePointer {
        drawIcon()
        if let cachedPixmaps { return g_variant_ref(cachedPixmaps) }
        return TrayContent.noPixmaps
    }

    /// Empty while the ring is drawn (hosts prefer a name to the pixmaps); a standard icon
    /// name for the state while drawing is unavailable, so that the item still shows.
    var iconName: OpaquePointer {
        drawIcon()
        return Variant.string(fallbackIconName ?? "")
    }

    /// Draws the ring for the picture shown, once. A host reads IconName and IconPixmap in
    /// either order (GetAll: the name first), so both draw first and agree.
    private func drawIcon() {
        guard cachedPixmaps == nil, fallbackIconName == nil, let picture = content?.picture else { return }
        do throws(RenderError) {
            cachedPixmaps = g_variant_ref_sink(try TrayContent.pixmaps(picture))!
            loggedDrawingUnavailable = false
        } catch where error.name == "DrawingUnavailable" {
            // The daemon goes on without the ring; the next picture tries the libraries again.
            let name = TrayContent.iconName(picture)
            fallbackIconName = name
            if !loggedDrawingUnavailable {
                Log.warning("tray: \(error.message); the item shows the icon '\(name)' instead of the ring")
            }
            loggedDrawingUnavailable = true
        } catch {
            Log.warning("tray: could not draw the icon: \(error.message)")
        }
    }

    // MARK: The name and the watcher

    private func own() {
        guard ownerID == 0 else { return }
        ownerID = g_bus_own_name_on_connection(
            context.connection, TrayInterfaces.serviceName, G_BUS_NAME_OWNER_FLAGS_DO_NOT_QUEUE,
            { _, _, userData in
                assertOnMainLoop()
                TrayOutput.from(userData).acquired()
            },
            { _, _, userData in
                assertOnMainLoop()
                TrayOutput.from(userData).registered = false
            }, userData, nil)
    }

    private func acquired() {
        registered = true
        register()
    }

    /// The name goes, and hosts drop the item with it; the next redraw starts afresh.
    private func release() {
        if ownerID != 0 { g_bus_unown_name(ownerID) }
        ownerID = 0
        registered = false
        content = nil
    }

    private func register() {
        guard registered, let watcher else { return }
        BusCall.call(
            context.connection, destination: watcher, path: TrayInterfaces.watcherPath,
            interface: TrayInterfaces.watcherInterface, method: "RegisterStatusNotifierItem",
            Variant.tuple([Variant.string(TrayInterfaces.serviceName)]), replyType: nil
        ) { [self] result in
            if case .failure(let failure) = result { refused("\(failure)") }
        }
    }

    private func refused(_ message: String) {
        if !loggedFailure {
            Log.warning("tray: the StatusNotifierWatcher refused the item: \(message) (not logged again)")
        }
        loggedFailure = true
    }

    private func watcherAppeared(_ owner: String) {
        watcher = owner
        // A new watcher knows nothing of the item: register again if it exists.
        if registered { register() }
        dirty = true
        redraw()
    }

    private func watcherGone() {
        watcher = nil
        dirty = true
        redraw()
    }

    private func shellIndicatorChanged(_ owner: String?) {
        guard owner != shellIndicator else { return }
        shellIndicator = owner
        Log.notice(
            owner == nil
                ? "tray: the GNOME Shell extension left; tasks show in the tray"
                : "tray: the GNOME Shell extension (\(owner!)) shows the tasks; the tray item steps aside")
        dirty = true
        redraw()
    }

    private func jobTrackerChanged(_ owner: String?) {
        let foreign = owner.flatMap { $0 == ownName ? nil : $0 }
        guard foreign != jobTracker else { return }
        jobTracker = foreign
        Log.notice(
            foreign == nil
                ? "tray: no job tracker on the bus; tasks show in the tray"
                : "tray: \(TrayInterfaces.jobTrackerName) is served by \(foreign!); the tray item steps aside")
        dirty = true
        redraw()
    }
}
