import CGLib
import FoundationEssentials
import ProgressBus
import ProgressModel
import ProgressCore
import ProgressPolicies
import ProgressDaemon

/// The accessibility output: every task as a progress bar on the AT-SPI bus, so that
/// Orca and any other assistive tool list, poll and hear tasks without knowing progressd.
///
/// Nothing is spent while accessibility is off: no connection, no tree, and `publish`
/// returns at once. When it turns on (AccessibilityBusWatch), a connection of its own is
/// opened asynchronously, the tree is built from the store and the application embeds;
/// when the bus goes the connection is dropped and the session-bus service goes on.
public final class AccessibilityExport: DaemonInput, AccessibleModel {
    /// What the export reads: the session bus, the tasks and their texts.
    public struct Configuration {
        public var session: OpaquePointer
        /// Where the tasks are read (`TaskFrontDoor.read`).
        public var frontDoor: TaskFrontDoor
        public var texts: TaskDescribing
        public var limits: Limits
        /// The daemon's locale name ("de_DE.UTF-8"), for Locale and GetLocale.
        public var locale: String
        public var version: String
        /// AT_SPI_BUS_ADDRESS, which overrides org.a11y.Bus as in GTK and Qt.
        public var overrideAddress: String?
        /// The root's name; "progressd" is the service's name in every locale.
        public var applicationName = "progressd"
        /// The daemon's clock (GLib's monotonic time); nil for GLib's own.
        public var clock: MainLoopClock?

        /// The daemon's session connection, front door, texts, limits, version and clock, in `locale`.
        public init(context: DaemonContext, locale: String, overrideAddress: String?) {
            session = context.connection
            frontDoor = context.frontDoor
            texts = context.texts
            limits = context.limits
            version = context.configuration.version
            clock = context.clock
            self.locale = locale
            self.overrideAddress = overrideAddress
        }
    }

    private let configuration: Configuration
    let tree = AccessibleTree()
    private let info: AtspiInterfaces?
    private var watch: AccessibilityBusWatch?
    private var bus: AccessibilityConnection?
    /// Bumped on every connect and drop, so that a connection finished after its bus went is thrown away.
    private var generation = 0
    private var pacer: ValueEventPacer
    private var sent: [TaskName: AccessibleBar] = [:]
    /// Announcements of a task whose bar this batch has yet to add (the budget hears the
    /// batch first): said once it is there, so that they come from the bar.
    private var heldAnnouncements: [AnnouncementBudget.Spoken] = []
    private let clock: MainLoopClock
    private lazy var pacerTimer = MainLoopTimer(clock: clock) { [weak self] in self?.pacerFired() }
    private var monotonicNow: Int64 { clock.monotonicMicros }

    var applicationName: String { configuration.applicationName }
    var locale: String { configuration.locale }
    var version: String { configuration.version }

    public init(configuration: Configuration) {
        self.configuration = configuration
        clock = configuration.clock ?? MainLoopClock()
        pacer = ValueEventPacer(taskIntervalMicros: configuration.limits.signalIntervalMicros)
        do {
            info = try AtspiInterfaces()
        } catch {
            Log.error("accessibility export off: \(error)")
            info = nil
        }
    }

    /// The daemon's output (`context.add(AccessibilityExport(context: context, …))`): it
    /// watches for accessibility once the daemon starts its inputs, and leaves the bus when
    /// the daemon stops.
    public convenience init(
        context: DaemonContext, locale: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.init(configuration: Configuration(
            context: context, locale: locale, overrideAddress: environment["AT_SPI_BUS_ADDRESS"]))
        // Announcements come from the daemon's one budget, shared with the broadcast.
        context.onAnnouncement { [weak self] spoken in self?.announce(spoken) }
    }

    /// Every change of the batch, in order.
    public func publish(_ batch: ChangeBatch) {
        guard bus != nil else { return }
        for change in batch.changes { publish(change) }
        let held = heldAnnouncements
        heldAnnouncements = []
        for spoken in held { announce(spoken, holding: false) }
    }

    /// Starts watching for the accessibility bus.
    public func start() {
        guard info != nil, watch == nil else { return }
        watch = AccessibilityBusWatch(
            session: configuration.session, environmentAddress: configuration.overrideAddress
        ) { [weak self] address in
            guard let self else { return }
            if let address {
                self.connect(to: address)
            } else {
                self.drop(reason: "accessibility is off or its bus went away")
            }
        }
        watch?.start()
    }

    public func stop() {
        watch?.stop()
        watch = nil
        drop(reason: nil)
    }

    func read<Result>(_ body: (AccessibleLook) -> Result) -> Result {
        configuration.frontDoor.read(.tasks([])) { body(AccessibleLook(tasks: $0, texts: configuration.texts)) }
    }

    private func bar(_ task: ProgressTask) -> AccessibleBar { AccessibleBar(task, texts: configuration.texts) }

    // MARK: Connecting

    private func connect(to address: String) {
        drop(reason: nil)
        generation += 1
        let attempt = generation
        BusCall.connect(to: address) { [weak self] result in
            switch result {
            case .success(let connection):
                guard let self, attempt == self.generation else {
                    return g_object_unref(UnsafeMutableRawPointer(connection))
                }
                self.attach(connection)
            case .failure(let failure):
                Log.warning("could not connect to the accessibility bus \(address): \(failure)")
            }
        }
    }

    private func attach(_ connection: OpaquePointer) {
        g_dbus_connection_set_exit_on_close(connection, 0)
        // The tree is built now, from the tasks as a read shows them: while off, nothing was kept.
        tree.removeAll()
        sent.removeAll()
        read { look in
            for name in look.tasks.sortedNames.sorted(by: { depth($0, look.tasks) < depth($1, look.tasks) }) {
                tree.insert(name, parent: look.tasks.task(name)?.parent)
                sent[name] = look.bar(name)
            }
        }
        do {
            let bus = try AccessibilityConnection(connection: connection, model: self, info: info!)
            let attempt = generation
            bus.onClosed = { [weak self] in
                guard let self, attempt == self.generation else { return }
                self.drop(reason: "the accessibility bus closed the connection")
                self.watch?.busLost()
            }
            self.bus = bus
            Log.notice("on the accessibility bus as \(bus.objects.busName), \(tree.count) tasks")
        } catch {
            Log.warning("accessibility export: \(error)")
            g_dbus_connection_close(connection, nil, nil, nil)
            g_object_unref(UnsafeMutableRawPointer(connection))
        }
    }

    private func depth(_ name: TaskName, _ tasks: TaskView) -> Int {
        var depth = 0
        var current = tasks.task(name)?.parent
        while let parent = current, depth < 64 {
            depth += 1
            current = tasks.task(parent)?.parent
        }
        return depth
    }

    private func drop(reason: String?) {
        generation += 1
        guard let bus else { return }
        if let reason { Log.notice("left the accessibility bus: \(reason)") }
        bus.close()
        self.bus = nil
        tree.removeAll()
        sent.removeAll()
        pacer.removeAll()
        pacerTimer.cancel()
    }

    // MARK: Changes

    /// One change from the daemon, judged by the task as the change left it. While off,
    /// this is all it costs.
    func publish(_ change: TaskChange) {
        guard let bus else { return }
        switch change.kind {
        case .created:
            let task = change.task
            if tree.bar(change.name) != nil { removeBar(change.name, bus) }
            if let place = tree.insert(change.name, parent: task.parent) {
                sent[change.name] = bar(task)
                childrenChanged("add", place, change.name, bus)
            }
        case .removed:
            removeBar(change.name, bus)
        case .updated:
            if change.properties.isDisjoint(with: Self.barShape) { return valueChanged(change.name, bus) }
            let task = change.task
            guard let placed = tree.bar(change.name) else { return }
            if placed.parent != task.parent {
                removeBar(change.name, bus)
                if let place = tree.insert(change.name, parent: task.parent) {
                    childrenChanged("add", place, change.name, bus)
                }
            }
            update(task, bus)
        }
    }

    private func removeBar(_ name: TaskName, _ bus: AccessibilityConnection) {
        let path = tree.path(of: name)
        guard let (place, moved) = tree.remove(name) else { return }
        sent[name] = nil
        pacer.forget(name)
        if bus.events.anyListener {
            bus.emit(path: place.parentPath, AtspiInterfaces.childrenChanged, detail: "remove",
                     detail1: Int32(place.index), detail2: 0, value: Variant.reference(bus.objects.busName, path))
        }
        for child in moved {
            if let place = tree.place(of: child) { childrenChanged("add", place, child, bus) }
        }
    }

    private func childrenChanged(
        _ detail: String, _ place: AccessibleTree.Place, _ name: TaskName, _ bus: AccessibilityConnection
    ) {
        guard bus.events.anyListener else { return }
        bus.emit(path: place.parentPath, AtspiInterfaces.childrenChanged, detail: detail, detail1: Int32(place.index),
                 detail2: 0, value: Variant.reference(bus.objects.busName, tree.path(of: name)))
    }

    /// What a bar's name, states, attributes and place in the tree follow. A change of none
    /// of them (most updates) can move only the value and the description, whose events the
    /// pacer spaces out anyway.
    private static let barShape: TaskProperties = [.title, .state, .indeterminate, .appId, .parent]

    /// A change that can move the value and the description only: the task is marked for the
    /// pacer, which looks at it when its event may go (and sends nothing if nothing moved).
    /// So a flood of updates costs a set lookup each, not the texts of every update. With
    /// nobody listening nothing is marked: what was last told stays in `sent`, and the next
    /// event after a tool registers says the value as it is then.
    private func valueChanged(_ name: TaskName, _ bus: AccessibilityConnection) {
        guard bus.events.anyListener, !pacer.isMarked(name) else { return }
        armPacer(at: pacer.mark(name, now: monotonicNow))
    }

    /// Names and states go out at once (they are rare, and libatspi's cache depends on
    /// them); the value and description wait for the pacer.
    private func update(_ task: ProgressTask, _ bus: AccessibilityConnection) {
        let name = task.name
        guard let old = sent[name] else { return }
        let new = bar(task)
        let difference = BarDifference(from: old, to: new)
        let path = tree.path(of: name)
        if difference.name && bus.events.anyListener {
            bus.emit(path: path, AtspiInterfaces.propertyChange, detail: "accessible-name",
                     detail1: 0, detail2: 0, value: Variant.string(new.name))
        }
        if bus.events.anyListener {
            for (states, on) in [(difference.gained, Int32(1)), (difference.lost, Int32(0))] {
                for state in states {
                    bus.emit(path: path, AtspiInterfaces.stateChanged, detail: state.nick,
                             detail1: on, detail2: 0, value: Variant.string("0"))
                }
            }
        }
        sent[name] = AccessibleBar(merging: new, valueFrom: old)
        guard difference.value || difference.description else { return }
        if bus.events.anyListener {
            armPacer(at: pacer.mark(name, now: monotonicNow))
        } else {
            sent[name] = new
        }
    }

    /// One announcement the daemon's budget let through, on the task's bar (or the
    /// application, for a summary of several).
    func announce(_ spoken: AnnouncementBudget.Spoken, holding: Bool = true) {
        guard let bus, bus.events.wants("object:announcement") else { return }
        if holding, let name = spoken.name, tree.bar(name) == nil, read({ $0.tasks.contains(name) }),
           heldAnnouncements.count < 64 {
            heldAnnouncements.append(spoken)
            return
        }
        // ATSPI_LIVE_POLITE = 1, ATSPI_LIVE_ASSERTIVE = 2 (atspi-constants.h AtspiLive).
        let politeness: Int32 = spoken.politeness == AnnouncementPolicy.Politeness.assertive ? 2 : 1
        bus.emit(path: tree.path(of: spoken.name), AtspiInterfaces.announcement, detail: "",
                 detail1: politeness, detail2: 0, value: Variant.string(spoken.sentence(configuration.texts)))
    }

    // MARK: Paced value events

    /// MainLoopTimer rounds up, so an event never goes before its spacing is over.
    private func armPacer(at deadline: Int64?) {
        guard let deadline else { return }
        pacerTimer.arm(at: deadline)
    }

    /// The first waiting task that has an event to send sends it; those whose value came back
    /// to what was told are unmarked on the way, using up no spacing.
    /// Reads the tasks as a read shows them: the values the daemon holds are applied first.
    private func pacerFired() {
        read { look in pacerFired(look) }
    }

    private func pacerFired(_ look: AccessibleLook) {
        let now = monotonicNow
        while let bus, let name = pacer.next(now: now) {
            if sendValueEvents(name, look, bus) {
                pacer.sent(name, now: now)
                break
            }
            pacer.unmark(name)
        }
        armPacer(at: pacer.nextDeadline(now: now))
    }

    /// The description and value events of what moved since the tools were told; whether any went.
    private func sendValueEvents(_ name: TaskName, _ look: AccessibleLook, _ bus: AccessibilityConnection) -> Bool {
        guard let new = look.bar(name) else { return false }
        let old = sent[name] ?? new
        sent[name] = new
        let path = tree.path(of: name)
        var spoke = false
        if old.description != new.description {
            bus.emit(path: path, AtspiInterfaces.propertyChange, detail: "accessible-description",
                     detail1: 0, detail2: 0, value: Variant.string(new.description))
            spoke = true
        }
        if (old.current != new.current || old.valueText != new.valueText)
            && bus.events.wants("object:property-change:accessible-value") {
            bus.emit(path: path, AtspiInterfaces.propertyChange, detail: "accessible-value",
                     detail1: 0, detail2: 0, value: g_variant_new_double(new.current))
            spoke = true
        }
        return spoke
    }
}
