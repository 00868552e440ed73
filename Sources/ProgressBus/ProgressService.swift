import CGLib
import ProgressCore

/// What the daemon is configured with; the executable fills it in.
public struct ServiceConfiguration {
    public var limits: Limits
    public var version: String
    /// Texts in the daemon's own locale, for Label, Detail and AccessibleText and their signals.
    public var texts: TaskDescribing
    /// Texts for a client's locale string (Snapshot, Describe, Subscribe); throws
    /// InvalidValue for a string that is not a locale.
    public var textsForLocale: (String) throws(ProgressError) -> TaskDescribing
    /// Where state goes; nil keeps it in memory only.
    public var journal: TaskJournal?
    /// Tasks to put back after a restart.
    public var restoredRecords: [TaskRecord]

    public init(
        limits: Limits, version: String, texts: TaskDescribing,
        textsForLocale: @escaping (String) throws(ProgressError) -> TaskDescribing,
        journal: TaskJournal? = nil, restoredRecords: [TaskRecord] = []
    ) {
        self.limits = limits
        self.version = version
        self.texts = texts
        self.textsForLocale = textsForLocale
        self.journal = journal
        self.restoredRecords = restoredRecords
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
    /// The broadcast Announcement signal's judgment, in the daemon's locale.
    private var announcements = AnnouncementPolicy()
    private let subscriptions: SubscriptionRegistry
    lazy var callbacks = ServiceCallbacks(service: self)

    /// The GLib source that sends held signals when they fall due, and when.
    private var flushSource: UInt32 = 0
    private var flushDeadline: Int64 = .max
    /// The manager's TaskCount and Overall are coalesced like a task's properties, so a
    /// burst of Starts is not a burst of signals.
    private var managerHeld = false
    private var lastManagerSignal: Int64?
    private var sentTaskCount: UInt32 = 0
    private var sentOverall = TaskSummary()
    /// The GLib source for the timing rules, and when it fires.
    private var housekeepingSource: UInt32 = 0
    private var housekeepingDeadline: Int64 = .max
    /// Values changed since the last save, and the source of the once-a-second save.
    private var saveThrottle = SaveThrottle()
    private var saveSource: UInt32 = 0

    public init(connection: OpaquePointer, configuration: ServiceConfiguration, clock: Clock? = nil) throws(DaemonError) {
        self.connection = connection
        self.configuration = configuration
        let clock = clock ?? GLibClock()
        self.clock = clock
        store = TaskStore(clock: clock, limits: configuration.limits)
        coalescer = SignalCoalescer(maxSignalsPerSecond: configuration.limits.maxSignalsPerSecond)
        subscriptions = SubscriptionRegistry(limits: configuration.limits)
        interfaces = try InterfaceInfo()
        for problem in store.restore(configuration.restoredRecords) { Log.warning(problem) }
        configuration.journal?.attach { [unowned store] in store.allRecords }
        sentTaskCount = UInt32(store.count)
        sentOverall = store.summary()
    }

    /// Exports the objects. Call before owning the bus name, so that no client can reach
    /// the name before the objects behind it exist.
    public func register() throws(DaemonError) {
        try callbacks.register()
        if let deadline = store.nextDeadline { armHousekeeping(at: deadline) }
    }

    public func unregister() {
        callbacks.unregister()
        for source in [flushSource, housekeepingSource, saveSource] where source != 0 { g_source_remove(source) }
        flushSource = 0
        housekeepingSource = 0
        saveSource = 0
    }

    /// Every record, for compacting the journal.
    public var allRecords: [TaskRecord] { store.allRecords }

    // MARK: Manager calls

    func handleManagerCall(sender: String, method: String, parameters: OpaquePointer, invocation: OpaquePointer) {
        do throws(ProgressError) {
            switch method {
            case "Start":
                let name = try store.name(Variant.stringChild(parameters, 0))
                let update = try TaskUpdate.parse(Variant.optionsChild(parameters, 1), for: .start, limits: store.limits)
                let changes = try store.start(name, with: update, caller: sender)
                complete(invocation, Variant.tuple([Variant.objectPath(BusNames.taskPath(name))]), changes)
            case "Update":
                let name = try store.name(Variant.stringChild(parameters, 0))
                let update = try TaskUpdate.parse(Variant.optionsChild(parameters, 1), for: .update, limits: store.limits)
                complete(invocation, nil, try store.update(name, with: update, caller: sender))
            case "UpdateMany":
                complete(invocation, nil, try updateMany(Variant.child(parameters, 0), caller: sender))
            case "SetFraction":
                let name = try store.name(Variant.stringChild(parameters, 0))
                complete(invocation, nil, try store.setFraction(name, Variant.doubleChild(parameters, 1), caller: sender))
            case "Pulse":
                complete(invocation, nil, try store.pulse(store.name(Variant.stringChild(parameters, 0)), caller: sender))
            case "Finish":
                complete(invocation, nil, try store.finish(store.name(Variant.stringChild(parameters, 0)), caller: sender))
            case "Fail":
                let name = try store.name(Variant.stringChild(parameters, 0))
                complete(invocation, nil, try store.fail(name, message: Variant.stringChild(parameters, 1), caller: sender))
            case "Remove":
                let name = try store.name(Variant.stringChild(parameters, 0))
                // Held signals describe the tasks; they go out before the tasks do.
                if store.task(name) != nil { flushAllHeld() }
                complete(invocation, nil, try store.remove(name))
            case "RequestCancel":
                complete(invocation, nil, try store.requestCancel(store.name(Variant.stringChild(parameters, 0))))
            case "RequestPause":
                complete(invocation, nil, try store.requestPause(store.name(Variant.stringChild(parameters, 0))))
            case "RequestResume":
                complete(invocation, nil, try store.requestResume(store.name(Variant.stringChild(parameters, 0))))
            case "List":
                let names = Variant.container("as") { builder in
                    for name in store.sortedNames { g_variant_builder_add_value(builder, Variant.string(name.text)) }
                }
                reply(invocation, Variant.tuple([names]))
            case "Snapshot":
                let locale = Variant.stringChild(parameters, 0)
                let texts = locale.isEmpty ? configuration.texts : try configuration.textsForLocale(locale)
                flushAllHeld()
                reply(invocation, Variant.tuple([snapshot(texts: texts)]))
            case "Describe":
                let name = try store.name(Variant.stringChild(parameters, 0))
                let locale = Variant.stringChild(parameters, 1)
                let texts = locale.isEmpty ? configuration.texts : try configuration.textsForLocale(locale)
                guard store.task(name) != nil else { throw .noSuchTask("no task is named '\(name.text)'") }
                flushHeld(name)
                reply(invocation, Variant.tuple([allProperties(store.task(name)!, texts: texts)]))
            case "Subscribe":
                let options = try SubscriptionOptions.parse(Variant.optionsChild(parameters, 0), limits: store.limits)
                let texts = options.locale.isEmpty ? configuration.texts : try configuration.textsForLocale(options.locale)
                let subscription = try subscriptions.add(owner: sender, options: options, texts: texts)
                subscription.registration = callbacks.registerSubscription(path: subscription.path)
                reply(invocation, Variant.tuple([Variant.objectPath(subscription.path)]))
            case "Unsubscribe":
                let subscription = try subscriptions.remove(path: Variant.stringChild(parameters, 0), caller: sender)
                callbacks.unregister(subscription.registration)
                reply(invocation, nil)
            case "Aggregate":
                let appId = Variant.stringChild(parameters, 0)
                reply(invocation, Variant.tuple([summaryVariant(store.summary(appId: appId))]))
            default:
                g_dbus_method_invocation_return_dbus_error(
                    invocation, "org.freedesktop.DBus.Error.UnknownMethod", "no method \(method) on \(BusNames.managerInterface)")
            }
        } catch {
            g_dbus_method_invocation_return_dbus_error(invocation, BusNames.errorName(error), error.message)
        }
    }

    /// Applies each (name, changes) in order, as Update would. Every entry is parsed before
    /// any is applied, so malformed input changes nothing; a refusal while applying stops
    /// there, the entries before it staying applied, and the error names the entry.
    private func updateMany(_ entries: OpaquePointer, caller: String) throws(ProgressError) -> [TaskChange] {
        defer { g_variant_unref(entries) }
        let count = Int(g_variant_n_children(entries))
        if count > store.limits.maxBatchEntries {
            throw .limitExceeded("UpdateMany got \(count) entries; the limit is \(store.limits.maxBatchEntries)")
        }
        var parsed: [(TaskName, TaskUpdate)] = []
        parsed.reserveCapacity(count)
        for index in 0..<count {
            let entry = Variant.child(entries, index)
            defer { g_variant_unref(entry) }
            do throws(ProgressError) {
                parsed.append((try store.name(Variant.stringChild(entry, 0)),
                               try TaskUpdate.parse(Variant.optionsChild(entry, 1), for: .update, limits: store.limits)))
            } catch {
                throw error.prefixed("entry \(index)")
            }
        }
        var changes: [TaskChange] = []
        for (index, (name, update)) in parsed.enumerated() {
            do throws(ProgressError) {
                changes += try store.update(name, with: update, caller: caller)
            } catch {
                // What was applied is published; the caller learns where it stopped.
                persist(changes)
                for change in changes { publish(change) }
                throw error.prefixed("entry \(index) (the \(index) before it were applied)")
            }
        }
        return changes
    }

    /// The tail of every mutating call: persist, reply, emit.
    private func complete(_ invocation: OpaquePointer, _ value: OpaquePointer?, _ changes: [TaskChange]) {
        persist(changes)
        reply(invocation, value)
        for change in changes { publish(change) }
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
        case "Version": return Variant.string(configuration.version)
        case "TaskCount", "Overall":
            // A read never overtakes a signal about an older value.
            if managerHeld { emitManagerProperties(now: clock.monotonicMicros) }
            return property == "TaskCount" ? g_variant_new_uint32(UInt32(store.count)) : summaryVariant(store.summary())
        default: return nil
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
        return Variant.property(task.value(of: taskProperty, describing: configuration.texts))
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
        case .removed:
            let interfaces = Variant.container("as") { g_variant_builder_add_value($0, Variant.string(BusNames.taskInterface)) }
            emit(
                path: BusNames.managerPath, interface: BusNames.objectManagerInterface, member: "InterfacesRemoved",
                Variant.tuple([Variant.objectPath(BusNames.taskPath(change.name)), interfaces]))
        case .updated:
            for request in change.requests {
                // Requests follow whatever was held for the task, so the job sees them in order.
                flushHeld(change.name)
                emit(path: BusNames.taskPath(change.name), interface: BusNames.taskInterface, member: request.rawValue, Variant.tuple([]))
            }
        }
        managerPropertiesMayHaveChanged(now: now)
        if let deadline = store.deadline(of: change.name) { armHousekeeping(at: deadline) }
        announce(change, now: now)
        if !subscriptions.isEmpty { tellSubscribers(change, now: now) }
    }

    // MARK: Announcements and subscriptions

    private func announce(_ change: TaskChange, now: Int64) {
        let task = store.task(change.name)
        guard let announcement = announcements.consider(change, task: task, now: now), let task else { return }
        emit(
            path: BusNames.managerPath, interface: BusNames.managerInterface, member: "Announcement",
            Variant.tuple([Variant.string(change.name.text), Variant.string(configuration.texts.accessibleText(of: task)),
                           Variant.string(announcement.politeness.rawValue)]))
    }

    private func tellSubscribers(_ change: TaskChange, now: Int64) {
        let task = store.task(change.name)
        for subscription in subscriptions.all where subscription.options.covers(change.name) {
            if subscription.options.announcements, let task,
               let announcement = subscription.policy.consider(change, task: task, now: now) {
                emit(
                    to: subscription, member: "Announcement",
                    Variant.tuple([Variant.string(change.name.text), Variant.string(subscription.texts.accessibleText(of: task)),
                                   Variant.string(announcement.politeness.rawValue)]))
            } else if change.kind == .removed {
                _ = subscription.policy.consider(change, task: nil, now: now)
            }
            guard subscription.options.changes else { continue }
            switch (change.kind, subscription.coalescer.record(change, now: now)) {
            case (.removed, _):
                emit(to: subscription, member: "Removed", Variant.tuple([Variant.string(change.name.text)]))
            case (.created, _):
                sendChanged(change.name, .all, to: subscription)
            case (_, .signal(let properties)):
                sendChanged(change.name, properties, to: subscription)
            case (_, .hold(let until)):
                armFlush(at: until)
            case (_, .none):
                break
            }
        }
    }

    private func sendChanged(_ name: TaskName, _ properties: TaskProperties, to subscription: Subscription) {
        guard let task = store.task(name) else { return }
        let values = Variant.container("a{sv}") { builder in
            for property in properties.members {
                Variant.addEntry(builder, property.dbusName, Variant.property(task.value(of: property, describing: subscription.texts)))
            }
        }
        emit(to: subscription, member: "Changed", Variant.tuple([Variant.string(name.text), values]))
    }

    /// A signal for one subscriber only.
    private func emit(to subscription: Subscription, member: String, _ parameters: OpaquePointer) {
        var error: UnsafeMutablePointer<GError>?
        if g_dbus_connection_emit_signal(
            connection, subscription.owner, subscription.path, BusNames.subscriptionInterface, member, parameters, &error) == 0 {
            Log.warning("could not send \(member) to \(subscription.owner): \(consumeMessage(error))")
        }
    }

    func connectionClosed(_ uniqueName: String) {
        for subscription in subscriptions.connectionClosed(uniqueName) { callbacks.unregister(subscription.registration) }
        let changes = store.connectionClosed(uniqueName)
        persist(changes)
        for change in changes { publish(change) }
    }

    /// Runs the timing rules (stall, lease, linger) when the earliest of them is due.
    func runHousekeeping() {
        housekeepingSource = 0
        housekeepingDeadline = .max
        let changes = store.housekeeping()
        persist(changes)
        for change in changes { publish(change) }
        if let next = store.nextDeadline { armHousekeeping(at: next) }
    }

    // MARK: Persistence

    /// Transitions are written before the reply; other changes at most once a second.
    private func persist(_ changes: [TaskChange]) {
        guard let journal = configuration.journal else { return }
        var records: [TaskRecord] = []
        var removed: [String] = []
        let now = clock.monotonicMicros
        for change in changes {
            if change.kind == .removed {
                removed.append(change.name.text)
                saveThrottle.forget(change.name)
            } else if change.mustPersistNow, let record = store.record(of: change.name) {
                records.append(record)
                saveThrottle.forget(change.name)
            } else if !change.properties.isEmpty, let due = saveThrottle.markDirty(change.name, now: now) {
                saveSource = callbacks.addTimer(milliseconds: UInt32((max(0, due - now) + 999) / 1000)) { $0.saveDueTasks() }
            }
        }
        journal.write(records, removed: removed)
    }

    func saveDueTasks() {
        saveSource = 0
        let now = clock.monotonicMicros
        guard let names = saveThrottle.takeDue(now: now) else {
            // Fired a little early: try again when the interval is up.
            if let due = saveThrottle.dueTime {
                saveSource = callbacks.addTimer(milliseconds: UInt32((max(0, due - now) + 999) / 1000)) { $0.saveDueTasks() }
            }
            return
        }
        configuration.journal?.write(names.compactMap(store.record(of:)), removed: [])
    }

    /// Writes what is waiting for the once-a-second save; called on a clean stop.
    public func saveNow() {
        if saveSource != 0 { g_source_remove(saveSource) }
        saveSource = 0
        configuration.journal?.write(saveThrottle.takeAll(now: clock.monotonicMicros).compactMap(store.record(of:)), removed: [])
    }

    // MARK: Manager properties

    private func managerPropertiesMayHaveChanged(now: Int64) {
        if let last = lastManagerSignal, now - last < coalescer.intervalMicros {
            managerHeld = true
            armFlush(at: last + coalescer.intervalMicros)
        } else {
            emitManagerProperties(now: now)
        }
    }

    /// TaskCount and Overall, each only if it changed since it was last sent. Computing
    /// Overall walks every task, so it happens at most at the signal rate.
    private func emitManagerProperties(now: Int64) {
        managerHeld = false
        lastManagerSignal = now
        let count = UInt32(store.count)
        let overall = store.summary()
        guard count != sentTaskCount || overall != sentOverall else { return }
        let changed = Variant.container("a{sv}") { builder in
            if count != sentTaskCount { Variant.addEntry(builder, "TaskCount", g_variant_new_uint32(count)) }
            if overall != sentOverall { Variant.addEntry(builder, "Overall", summaryVariant(overall)) }
        }
        sentTaskCount = count
        sentOverall = overall
        emitPropertiesChanged(path: BusNames.managerPath, interface: BusNames.managerInterface, changed)
    }

    func summaryVariant(_ summary: TaskSummary) -> OpaquePointer {
        Variant.container("a{sv}") { builder in
            for (key, value) in summary.entries { Variant.addEntry(builder, key, Variant.property(value)) }
        }
    }

    private func emitPropertiesChanged(_ name: TaskName, _ properties: TaskProperties) {
        guard let task = store.task(name) else { return }
        let changed = Variant.container("a{sv}") { builder in
            for property in properties.members {
                Variant.addEntry(builder, property.dbusName, Variant.property(task.value(of: property, describing: configuration.texts)))
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
        if managerHeld { emitManagerProperties(now: now) }
    }

    /// Sends what has fallen due; called by the flush timer.
    func flushDue() {
        flushSource = 0
        flushDeadline = .max
        let now = clock.monotonicMicros
        for entry in coalescer.takeDue(now: now) { emitPropertiesChanged(entry.name, entry.properties) }
        for subscription in subscriptions.all {
            for entry in subscription.coalescer.takeDue(now: now) { sendChanged(entry.name, entry.properties, to: subscription) }
            if let next = subscription.coalescer.nextDeadline { armFlush(at: next) }
        }
        let managerDue = (lastManagerSignal ?? 0) + coalescer.intervalMicros
        if managerHeld && now >= managerDue { emitManagerProperties(now: now) }
        if let next = coalescer.nextDeadline { armFlush(at: next) }
        if managerHeld { armFlush(at: managerDue) }
    }

    private func armFlush(at deadline: Int64) {
        if flushSource != 0 && flushDeadline <= deadline { return }
        if flushSource != 0 { g_source_remove(flushSource) }
        flushDeadline = deadline
        let delayMicros = max(0, deadline - clock.monotonicMicros)
        // Rounded up, so the timer never fires before the interval is over.
        flushSource = callbacks.addTimer(milliseconds: UInt32((delayMicros + 999) / 1000)) { $0.flushDue() }
    }

    private func armHousekeeping(at deadline: Int64) {
        if housekeepingSource != 0 && housekeepingDeadline <= deadline { return }
        if housekeepingSource != 0 { g_source_remove(housekeepingSource) }
        housekeepingDeadline = deadline
        let delayMicros = max(0, deadline - clock.monotonicMicros)
        housekeepingSource = callbacks.addTimer(milliseconds: UInt32(min(Int64(UInt32.max), (delayMicros + 999) / 1000))) {
            $0.runHousekeeping()
        }
    }

    // MARK: Building replies

    private func reply(_ invocation: OpaquePointer, _ value: OpaquePointer?) {
        g_dbus_method_invocation_return_value(invocation, value)
    }

    private func allProperties(_ task: ProgressTask, texts: TaskDescribing) -> OpaquePointer {
        Variant.container("a{sv}") { builder in
            for property in TaskProperty.allCases {
                Variant.addEntry(builder, property.dbusName, Variant.property(task.value(of: property, describing: texts)))
            }
        }
    }

    private func taskInterfaces(_ task: ProgressTask) -> OpaquePointer {
        Variant.container("a{sa{sv}}") { builder in
            g_variant_builder_add_value(
                builder,
                g_variant_new_dict_entry(Variant.string(BusNames.taskInterface), allProperties(task, texts: configuration.texts)))
        }
    }

    private func snapshot(texts: TaskDescribing) -> OpaquePointer {
        Variant.container("a{sa{sv}}") { builder in
            for name in store.sortedNames {
                guard let task = store.task(name) else { continue }
                g_variant_builder_add_value(
                    builder, g_variant_new_dict_entry(Variant.string(name.text), allProperties(task, texts: texts)))
            }
        }
    }
}

/// The daemon's clock: GLib's monotonic and real time, the same clock GLib timers use.
final class GLibClock: Clock {
    var monotonicMicros: Int64 { Int64(g_get_monotonic_time()) }
    var wallMicros: Int64 { Int64(g_get_real_time()) }
}
