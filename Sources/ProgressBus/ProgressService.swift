import CGLib
import ProgressCore

/// What the daemon is configured with; the executable fills it in.
public struct ServiceConfiguration {
    public var limits: Limits
    public var version: String
    /// Labels in the daemon's own locale, for the Label property and its signals.
    public var labels: PercentLabeling
    /// Labels for a client's locale string (Snapshot); throws InvalidValue for a bad locale.
    public var labelsForLocale: (String) throws(ProgressError) -> PercentLabeling

    public init(
        limits: Limits, version: String, labels: PercentLabeling,
        labelsForLocale: @escaping (String) throws(ProgressError) -> PercentLabeling
    ) {
        self.limits = limits
        self.version = version
        self.labels = labels
        self.labelsForLocale = labelsForLocale
    }
}

/// The GDBus adapter: turns calls into store mutations, and the changes they return into
/// replies and signals. Every handler runs on the GLib main loop thread, in the order
/// parse, validate, mutate, reply, emit.
public final class ProgressService {
    let connection: OpaquePointer
    let store: TaskStore
    let configuration: ServiceConfiguration
    let interfaces: InterfaceInfo
    private let clock: Clock
    private var coalescer: SignalCoalescer
    lazy var callbacks = ServiceCallbacks(service: self)

    /// The GLib source that sends held signals when they fall due, and when.
    private var flushSource: UInt32 = 0
    private var flushDeadline: Int64 = .max
    /// TaskCount is coalesced like a task's properties, so a burst of Starts is not a burst of signals.
    private var taskCountHeld = false
    private var lastTaskCountSignal: Int64?

    public init(connection: OpaquePointer, configuration: ServiceConfiguration, clock: Clock? = nil) throws(DaemonError) {
        self.connection = connection
        self.configuration = configuration
        let clock = clock ?? GLibClock()
        self.clock = clock
        store = TaskStore(clock: clock, limits: configuration.limits)
        coalescer = SignalCoalescer(maxSignalsPerSecond: configuration.limits.maxSignalsPerSecond)
        interfaces = try InterfaceInfo()
    }

    /// Exports the objects. Call before owning the bus name, so that no client can reach
    /// the name before the objects behind it exist.
    public func register() throws(DaemonError) {
        try callbacks.register()
    }

    public func unregister() {
        callbacks.unregister()
        if flushSource != 0 { g_source_remove(flushSource) }
        flushSource = 0
    }

    // MARK: Manager calls

    func handleManagerCall(sender: String, method: String, parameters: OpaquePointer, invocation: OpaquePointer) {
        do throws(ProgressError) {
            switch method {
            case "Start":
                let name = try store.name(Variant.stringChild(parameters, 0))
                let update = try TaskUpdate.parse(Variant.optionsChild(parameters, 1), for: .start, limits: store.limits)
                let change = try store.start(name, with: update, caller: sender)
                reply(invocation, Variant.tuple([Variant.objectPath(BusNames.taskPath(name))]))
                publish(change)
            case "Update":
                let name = try store.name(Variant.stringChild(parameters, 0))
                let update = try TaskUpdate.parse(Variant.optionsChild(parameters, 1), for: .update, limits: store.limits)
                let change = try store.update(name, with: update, caller: sender)
                reply(invocation, nil)
                publish(change)
            case "SetFraction":
                let name = try store.name(Variant.stringChild(parameters, 0))
                let change = try store.setFraction(name, Variant.doubleChild(parameters, 1), caller: sender)
                reply(invocation, nil)
                publish(change)
            case "Pulse":
                let change = try store.pulse(store.name(Variant.stringChild(parameters, 0)), caller: sender)
                reply(invocation, nil)
                publish(change)
            case "Finish":
                let change = try store.finish(store.name(Variant.stringChild(parameters, 0)), caller: sender)
                reply(invocation, nil)
                publish(change)
            case "Fail":
                let name = try store.name(Variant.stringChild(parameters, 0))
                let change = try store.fail(name, message: Variant.stringChild(parameters, 1), caller: sender)
                reply(invocation, nil)
                publish(change)
            case "Remove":
                let name = try store.name(Variant.stringChild(parameters, 0))
                // Held signals describe the task; they go out before the task does.
                flushHeld(name)
                let change = try store.remove(name)
                reply(invocation, nil)
                publish(change)
            case "List":
                let names = Variant.container("as") { builder in
                    for name in store.sortedNames { g_variant_builder_add_value(builder, Variant.string(name.text)) }
                }
                reply(invocation, Variant.tuple([names]))
            case "Snapshot":
                let locale = Variant.stringChild(parameters, 0)
                let labels = locale.isEmpty ? configuration.labels : try configuration.labelsForLocale(locale)
                flushAllHeld()
                reply(invocation, Variant.tuple([snapshot(labels: labels)]))
            default:
                g_dbus_method_invocation_return_dbus_error(
                    invocation, "org.freedesktop.DBus.Error.UnknownMethod", "no method \(method) on \(BusNames.managerInterface)")
            }
        } catch {
            g_dbus_method_invocation_return_dbus_error(invocation, BusNames.errorName(error), error.message)
        }
    }

    func handleGetManagedObjects(invocation: OpaquePointer) {
        flushAllHeld()
        let objects = Variant.container("a{oa{sa{sv}}}") { builder in
            for name in store.sortedNames {
                guard let task = store.task(name) else { continue }
                g_variant_builder_add_value(
                    builder,
                    g_variant_new_dict_entry(Variant.objectPath(BusNames.taskPath(name)), taskInterfaces(task)))
            }
        }
        reply(invocation, Variant.tuple([objects]))
    }

    func managerProperty(_ property: String) -> OpaquePointer? {
        switch property {
        case "Version": Variant.string(configuration.version)
        case "TaskCount": g_variant_new_uint32(UInt32(store.count))
        default: nil
        }
    }

    // MARK: Task objects

    /// The task an object path under tasks/ stands for, if it exists.
    func task(atPath path: String) -> TaskName? {
        let prefix = BusNames.tasksPath + "/"
        guard path.hasPrefix(prefix) else { return nil }
        return task(atPathElement: String(path.dropFirst(prefix.count)))
    }

    func task(atPathElement element: String) -> TaskName? {
        guard let name = TaskName(pathElement: element, limits: store.limits), store.task(name) != nil else { return nil }
        return name
    }

    var taskPathElements: [String] { store.sortedNames.map(\.pathElement) }

    /// A Get or GetAll on a task: held signals for it go out first, so the reply never
    /// overtakes a signal about an older value.
    func taskProperty(path: String, property: String) -> OpaquePointer? {
        guard let name = task(atPath: path), let taskProperty = TaskProperty(dbusName: property) else { return nil }
        flushHeld(name)
        guard let task = store.task(name) else { return nil }
        return Variant.property(task.value(of: taskProperty, labeling: configuration.labels))
    }

    // MARK: Signals

    /// Turns a change into signals: at once, or held by the coalescer.
    func publish(_ change: TaskChange) {
        let now = clock.monotonicMicros
        switch coalescer.record(change, now: now) {
        case .signal(let properties): emitPropertiesChanged(change.name, properties)
        case .hold(let until): armFlush(at: until)
        case .none: break
        }
        switch change.kind {
        case .created:
            if let task = store.task(change.name) {
                emit(
                    path: BusNames.managerPath, interface: BusNames.objectManagerInterface, member: "InterfacesAdded",
                    Variant.tuple([Variant.objectPath(BusNames.taskPath(change.name)), taskInterfaces(task)]))
            }
            taskCountChanged(now: now)
        case .removed:
            let interfaces = Variant.container("as") { g_variant_builder_add_value($0, Variant.string(BusNames.taskInterface)) }
            emit(
                path: BusNames.managerPath, interface: BusNames.objectManagerInterface, member: "InterfacesRemoved",
                Variant.tuple([Variant.objectPath(BusNames.taskPath(change.name)), interfaces]))
            taskCountChanged(now: now)
        case .updated:
            break
        }
    }

    func connectionClosed(_ uniqueName: String) {
        for change in store.connectionClosed(uniqueName) { publish(change) }
    }

    private func taskCountChanged(now: Int64) {
        if let last = lastTaskCountSignal, now - last < coalescer.intervalMicros {
            taskCountHeld = true
            armFlush(at: last + coalescer.intervalMicros)
        } else {
            emitTaskCount(now: now)
        }
    }

    private func emitTaskCount(now: Int64) {
        taskCountHeld = false
        lastTaskCountSignal = now
        let changed = Variant.container("a{sv}") { Variant.addEntry($0, "TaskCount", g_variant_new_uint32(UInt32(store.count))) }
        emitPropertiesChanged(path: BusNames.managerPath, interface: BusNames.managerInterface, changed)
    }

    private func emitPropertiesChanged(_ name: TaskName, _ properties: TaskProperties) {
        guard let task = store.task(name) else { return }
        let changed = Variant.container("a{sv}") { builder in
            for property in properties.members {
                Variant.addEntry(builder, property.dbusName, Variant.property(task.value(of: property, labeling: configuration.labels)))
            }
        }
        emitPropertiesChanged(path: BusNames.taskPath(name), interface: BusNames.taskInterface, changed)
    }

    private func emitPropertiesChanged(path: String, interface: String, _ changed: OpaquePointer) {
        let invalidated = Variant.container("as") { _ in }
        emit(
            path: path, interface: BusNames.propertiesInterface, member: "PropertiesChanged",
            Variant.tuple([Variant.string(interface), changed, invalidated]))
    }

    private func emit(path: String, interface: String, member: String, _ parameters: OpaquePointer) {
        var error: UnsafeMutablePointer<GError>?
        if g_dbus_connection_emit_signal(connection, nil, path, interface, member, parameters, &error) == 0 {
            Log.warning("could not emit \(interface).\(member) on \(path): \(consumeMessage(error))")
        }
    }

    private func flushHeld(_ name: TaskName) {
        if let properties = coalescer.flush(name, now: clock.monotonicMicros) { emitPropertiesChanged(name, properties) }
    }

    private func flushAllHeld() {
        let now = clock.monotonicMicros
        for entry in coalescer.flushAll(now: now) { emitPropertiesChanged(entry.name, entry.properties) }
        if taskCountHeld { emitTaskCount(now: now) }
    }

    /// Sends what has fallen due; called by the flush timer.
    func flushDue() {
        flushSource = 0
        flushDeadline = .max
        let now = clock.monotonicMicros
        for entry in coalescer.takeDue(now: now) { emitPropertiesChanged(entry.name, entry.properties) }
        let taskCountDue = (lastTaskCountSignal ?? 0) + coalescer.intervalMicros
        if taskCountHeld && now >= taskCountDue { emitTaskCount(now: now) }
        if let next = coalescer.nextDeadline { armFlush(at: next) }
        if taskCountHeld { armFlush(at: taskCountDue) }
    }

    private func armFlush(at deadline: Int64) {
        if flushSource != 0 && flushDeadline <= deadline { return }
        if flushSource != 0 { g_source_remove(flushSource) }
        flushDeadline = deadline
        let delayMicros = max(0, deadline - clock.monotonicMicros)
        // Rounded up, so the timer never fires before the interval is over.
        flushSource = callbacks.addFlushTimer(milliseconds: UInt32((delayMicros + 999) / 1000))
    }

    // MARK: Building replies

    private func reply(_ invocation: OpaquePointer, _ value: OpaquePointer?) {
        g_dbus_method_invocation_return_value(invocation, value)
    }

    private func allProperties(_ task: ProgressTask, labels: PercentLabeling) -> OpaquePointer {
        Variant.container("a{sv}") { builder in
            for property in TaskProperty.allCases {
                Variant.addEntry(builder, property.dbusName, Variant.property(task.value(of: property, labeling: labels)))
            }
        }
    }

    private func taskInterfaces(_ task: ProgressTask) -> OpaquePointer {
        Variant.container("a{sa{sv}}") { builder in
            g_variant_builder_add_value(
                builder,
                g_variant_new_dict_entry(Variant.string(BusNames.taskInterface), allProperties(task, labels: configuration.labels)))
        }
    }

    private func snapshot(labels: PercentLabeling) -> OpaquePointer {
        Variant.container("a{sa{sv}}") { builder in
            for name in store.sortedNames {
                guard let task = store.task(name) else { continue }
                g_variant_builder_add_value(
                    builder, g_variant_new_dict_entry(Variant.string(name.text), allProperties(task, labels: labels)))
            }
        }
    }
}

/// The daemon's clock: GLib's monotonic and real time, the same clock GLib timers use.
final class GLibClock: Clock {
    var monotonicMicros: Int64 { Int64(g_get_monotonic_time()) }
    var wallMicros: Int64 { Int64(g_get_real_time()) }
}
