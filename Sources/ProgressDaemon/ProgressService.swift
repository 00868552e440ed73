import CGLib
import ProgressBus
import ProgressModel
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
    /// The daemon's own program file, watched for an upgrade (`ProgramWatch`); nil watches none.
    public var program: String?

    public init(
        limits: Limits, version: String, texts: TaskDescribing,
        textsForLocale: @escaping (String) throws(ProgressError) -> TaskDescribing,
        journal: TaskJournal? = nil, restoredRecords: [TaskRecord] = [], program: String? = nil
    ) {
        self.program = program
        self.limits = limits
        self.version = version
        self.texts = texts
        self.textsForLocale = textsForLocale
        self.journal = journal
        self.restoredRecords = restoredRecords
    }
}

/// The Progress1 service, assembled: the standard parts of the daemon's one ordered list,
/// in the order they hear each event: persistence (a recorder, before the reply), the
/// change index, the task objects' signals, the manager's properties, announcements,
/// subscriptions, the timing rules and the watch of departing connections. The optional
/// parts (bridges, notifications, accessibility) follow, one line each in the daemon's main.
public final class ProgressService {
    public let context: DaemonContext
    let interfaces: InterfaceInfo
    let variants: TaskVariants
    lazy var objects = TaskObjects(service: self)
    let subscriptions: SubscriptionOutput
    let changeIndex: ChangeIndex
    /// Reads over many tasks: refused before they are built, written in slices.
    let largeReads: LargeReadScheduler
    private let managerProperties: ManagerPropertiesOutput
    private let journal: JournalRecorder?
    /// Each connection's identity, learned before its calls are handled.
    var identities: CallerIdentityCache { context.identities }
    private var commitWhenIdle: MainLoopTimer!
    private var commitAtLatest: MainLoopTimer!

    public init(
        connection: OpaquePointer, configuration: ServiceConfiguration, clock: MainLoopClock = MainLoopClock()
    ) throws(DaemonError) {
        interfaces = try InterfaceInfo()
        try Self.managerMethods.check(against: interfaces.manager)
        for signals in Progress1Signals.tables { try signals.check(against: interfaces.interface(signals.interface)) }
        let context = DaemonContext(connection: connection, configuration: configuration, clock: clock)
        self.context = context
        variants = TaskVariants(table: context.frontDoor.properties)
        largeReads = LargeReadScheduler(context: context)
        changeIndex = ChangeIndex(
            firstSequence: context.frontDoor.lastSequence + 1, maxRemovals: configuration.limits.maxRemovalsKept)

        journal = configuration.journal.map {
            JournalRecorder(journal: $0, frontDoor: context.frontDoor, clock: context.clock)
        }
        if let journal { context.stream.add(recorder: journal) }
        context.add(changeIndex)
        context.add(TaskSignalOutput(context: context, variants: variants))
        let recorder = journal
        managerProperties = ManagerPropertiesOutput(
            sources: ManagerProperty.Sources(
                context: context, variants: variants, changeIndex: changeIndex,
                storageState: { recorder?.storageState ?? "ok" }))
        context.add(managerProperties)
        journal?.storageChanged = { [unowned managerProperties] in managerProperties.valuesMayHaveChanged() }
        context.add(AnnouncementOutput(context: context))
        subscriptions = try SubscriptionOutput(context: context, variants: variants, interface: interfaces.subscription)
        context.add(subscriptions)
        context.add(TimingInput(context: context))
        context.add(ConnectionWatch(context: context))
        // After the watch: a bound connection leaving after the bus was asked is heard there.
        context.add(RestoredBindings(context: context))
        context.add(StagedValueInput(context: context))
        if let program = configuration.program { context.add(ProgramWatch(context: context, path: program)) }
        context.identities.clientLeft = { [unowned context] client in context.clientLeft(client) }
        // The group is every transition that arrives while calls keep coming: it is committed
        // when the main loop has no call ready (idle priority), or after `Limits`' group
        // commit delay at the latest, so a flood of calls can not hold a reply back longer.
        commitWhenIdle = MainLoopTimer(clock: context.clock, priority: G_PRIORITY_DEFAULT_IDLE) { [unowned self] in
            commit()
        }
        commitAtLatest = MainLoopTimer(clock: context.clock) { [unowned self] in commit() }
        context.stream.scheduleCommit = { [unowned self] in
            let now = context.clock.monotonicMicros
            commitWhenIdle.arm(at: now)
            commitAtLatest.arm(at: now + context.limits.groupCommitMaxDelayMicros)
        }
    }

    private func commit() {
        commitWhenIdle.cancel()
        commitAtLatest.cancel()
        context.stream.commitWaiting()
    }

    var frontDoor: TaskFrontDoor { context.frontDoor }

    /// Exports the objects, puts the restored tasks through the stream and starts the inputs.
    /// Call after every output is added and before owning the bus name, so that no client
    /// can reach the name before the objects behind it exist.
    public func register() throws(DaemonError) {
        try objects.register()
        try context.start()
    }

    /// Saves what waits, stops every part (the stream's last event) and withdraws the objects.
    public func unregister() {
        // What was replied to goes out; what waits for its sync is synced and replied to.
        context.submit(context.frontDoor.applyHeld())
        commit()
        g_dbus_connection_flush_sync(context.connection, nil, nil)
        journal?.saveNow()
        context.stop()
        objects.unregister()
    }

    /// Every record, for compacting the journal.
    public var allRecords: [TaskRecord] { frontDoor.recordedTasks() }

    // MARK: Reads that GDBus routes here

    func handleGetManagedObjects(invocation: OpaquePointer) {
        let limit = frontDoor.limits.maxReplyBytes
        let refuse = { (error: ProgressError) in
            Log.warning(error.message)
            g_dbus_method_invocation_return_dbus_error(invocation, BusNames.errorName(error), error.message)
        }
        let element = SlicedReply.Element.managedObject(variants, context.texts)
        let all = frontDoor.properties.all
        let tasks: Int
        do throws(ProgressError) {
            tasks = try largeReads.refuseIfTooBig("GetManagedObjects", element, all)
        } catch {
            return refuse(error)
        }
        let reply = SlicedReply(.names(after: "", all), element: element, maxBytes: limit, expected: tasks)
        largeReads.write(reply, reading: .everything) { reply in
            let value = reply.make()
            guard reply.complete else {
                g_variant_unref(g_variant_ref_sink(value))
                return refuse(.tooBigForOneReply("GetManagedObjects", tasks: tasks, limit: limit))
            }
            MethodCall.reply(invocation, Variant.tuple([value]), maxBytes: limit)
        }
    }

    func managerProperty(_ property: String) -> OpaquePointer? { managerProperties.value(of: property) }

    /// The task an object path under tasks/ stands for, if it exists.
    func task(atPath path: String) -> TaskName? {
        let prefix = BusNames.tasksPath + "/"
        guard path.hasPrefix(prefix) else { return nil }
        return task(atPathElement: String(path.dropFirst(prefix.count)))
    }

    /// Only the task's own path: Swift compares names by canonical equivalence, so the
    /// path of an NFD spelling would find the NFC task; it is not the task's path, though
    /// (the store keeps names in NFC), and a task has one.
    func task(atPathElement element: String) -> TaskName? {
        guard let name = TaskName(pathElement: element, limits: frontDoor.limits),
              let task = context.read(.tasks([]), { $0.task(name) }), task.name.pathElement == element else {
            return nil
        }
        return task.name
    }

    var taskPathElements: [String] { context.read(.tasks([])) { $0.sortedNames.map(\.pathElement) } }

    /// A Get or GetAll on a task: held signals for it go out first, so the reply never
    /// overtakes a signal about an older value.
    func taskProperty(path: String, property: String) -> OpaquePointer? {
        guard let name = task(atPath: path), let index = frontDoor.properties.index(named: property) else { return nil }
        guard let task = context.read(.task(name), { $0.task(name) }) else { return nil }
        return Variant.property(frontDoor.properties.value(at: index, of: task, describing: context.texts))
    }
}
