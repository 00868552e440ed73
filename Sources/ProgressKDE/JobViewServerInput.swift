import CGLib
import ProgressBus
import ProgressModel
import ProgressDaemon

/// Serves KDE's job view protocol where no one else does, so that KIO jobs (Dolphin, Ark,
/// kioclient5) become progressd tasks. It owns `org.kde.JobViewServer` and `org.kde.kuiserver`
/// allowing replacement (Plasma's shell takes them with ReplaceExistingService) and queued,
/// so it serves again when that owner leaves. `/JobViewServer` has JobViewServer (V1),
/// JobViewServerV2 and kuiserver; KIO introspects it and uses V2 when it finds that interface.
///
/// Each view is an object with JobViewV2 and JobViewV3; its job is the task
/// `kde/<desktop entry>/<n>`, started with lifetime `persistent` (the view, not a lease,
/// decides when it ends) in the name of the client that requested the view: its identity is
/// learned as a Progress1 caller's is, the same access rules hold (a sandboxed app's view
/// for another app's desktop entry is refused, AccessDenied), and the view and its task are
/// charged to its process or app in the ledger of caps. When the application leaves the bus
/// its live tasks fail with "the application closed unexpectedly" (Plasma's wording).
/// Across a restart of progressd a live job's task stays bound to its application's
/// connection (`RestoredBindings` asks the bus whether it is still there): gone, the task
/// fails as above; there, it fails when the application leaves, and KIO's V2 tracker, which
/// requests its views again from the name's new owner, gets the same task back for a view of
/// the same desktop entry.
/// As an output it turns RequestCancel/Pause/Resume on those tasks into the view's signals.
public final class JobViewServerInput: DaemonInput {
    typealias Handler = @Sendable (JobViewServerInput, MethodCall) -> Void

    private let context: DaemonContext
    private let interfaces: KDEInterfaces
    /// /JobViewServer, while progressd serves.
    private var server: ExportedObject?
    /// JobViewV2 and JobViewV3, which every view's object serves (set last in init: their
    /// rows are bound to this input, which finds the view by the call's path).
    private var viewInterfaces: [ExportedInterface] = []
    private var ownerIDs: [UInt32] = []
    private var views: [String: JobView] = [:]
    private var viewsByTask: [TaskName: JobView] = [:]
    /// Identities whose refusal was logged: one line each (an app, not each of its
    /// connections), however often they try.
    private var loggedRefusals: Set<TaskOwner> = []
    private var nextNumber: UInt64 = 0
    /// Live tasks of views from before a restart, each with the application it belongs to,
    /// until that application requests a view again for it or leaves.
    private var restored: [TaskName: ClientID] = [:]
    /// The names progressd holds at the moment.
    public private(set) var ownedNames: Set<String> = []

    static let serverMethods = MethodTable<Handler>(interface: KDEInterfaces.serverInterface, [
        ("requestView", { $0.requestView($1, version: .v1) }),
    ])
    static let serverV2Methods = MethodTable<Handler>(interface: KDEInterfaces.serverV2Interface, [
        ("requestView", { $0.requestView($1, version: .v2) }),
    ])
    static let kuiserverMethods = MethodTable<Handler>(interface: KDEInterfaces.kuiserverInterface, [
        ("registerService", { _, call in
            call.fail("org.freedesktop.DBus.Error.NotSupported", "registerService is deprecated and defunct")
        }),
        ("emitJobUrlsChanged", { _, call in call.reply(nil) }),
        // false: jobs are shown here, KIO need not open its own progress windows.
        ("requiresJobTracker", { _, call in call.reply(Variant.tuple([g_variant_new_boolean(0)])) }),
        ("registeredJobContacts", { _, call in call.reply(Variant.tuple([Variant.container("as") { _ in }])) }),
    ])

    public init(context: DaemonContext) throws(DaemonError) {
        self.context = context
        interfaces = try KDEInterfaces()
        try Self.serverMethods.check(against: interfaces.server)
        try Self.serverV2Methods.check(against: interfaces.serverV2)
        try Self.kuiserverMethods.check(against: interfaces.kuiserver)
        try JobView.v2Methods.check(against: interfaces.viewV2)
        try JobView.v3Methods.check(against: interfaces.viewV3)
        for (signals, info) in [(JobView.v2Signals, interfaces.viewV2), (JobView.v3Signals, interfaces.viewV3)] {
            try signals.check(against: info)
        }
        viewInterfaces = [
            try ExportedInterface(interfaces.viewV2, methods: JobView.v2Methods.map { handler in
                { [unowned self] call in viewCall(handler, call.methodCall()) }
            }),
            try ExportedInterface(interfaces.viewV3, methods: JobView.v3Methods.map { handler in
                { [unowned self] call in viewCall(handler, call.methodCall()) }
            }),
        ]
    }

    private var userData: gpointer { Unmanaged.passUnretained(self).toOpaque() }

    /// Exports /JobViewServer, then asks for the names (objects before names, so no client
    /// reaches a name before the object behind it exists).
    public func start() throws(DaemonError) {
        // Live tasks of a previous run: bound to their application, or, from an older
        // journal that did not say whose they were, orphans nothing would ever end.
        let live = context.read(.tasks([])) { tasks in
            tasks.namesInOrder.compactMap { name in
                tasks.task(name).flatMap {
                    KDEInterfaces.isKDETask(name) && $0.isLive ? (name, $0.boundConnection) : nil
                }
            }
        }
        for (name, client) in live {
            if let client {
                restored[name] = client
                nextNumber = max(nextNumber, Self.number(of: name) ?? 0)
            } else {
                context.perform(
                    .fail(name, message: "progressd restarted while the job ran; its job view is gone"),
                    by: KDEInterfaces.daemonOrigin)
            }
        }
        let bind = { [unowned self] (handler: @escaping Handler) -> ExportedInterface.Method in
            { [unowned self] call in handler(self, call.methodCall()) }
        }
        server = try ExportedObject(on: context.connection, path: KDEInterfaces.serverPath, [
            try ExportedInterface(interfaces.server, methods: Self.serverMethods.map(bind)),
            try ExportedInterface(interfaces.serverV2, methods: Self.serverV2Methods.map(bind)),
            try ExportedInterface(interfaces.kuiserver, methods: Self.kuiserverMethods.map(bind)),
        ])
        for name in [KDEInterfaces.serverName, KDEInterfaces.kuiserverName] {
            ownerIDs.append(g_bus_own_name_on_connection(
                context.connection, name, G_BUS_NAME_OWNER_FLAGS_ALLOW_REPLACEMENT,
                { _, name, userData in
                    assertOnMainLoop()
                    Unmanaged<JobViewServerInput>.fromOpaque(userData!).takeUnretainedValue()
                        .acquired(String(cString: name!))
                },
                { _, name, userData in
                    assertOnMainLoop()
                    Unmanaged<JobViewServerInput>.fromOpaque(userData!).takeUnretainedValue()
                        .lost(String(cString: name!))
                },
                userData, nil))
        }
    }

    public func stop() {
        for id in ownerIDs { g_bus_unown_name(id) }
        ownerIDs.removeAll()
        for view in Array(views.values) { drop(view) }
        server?.end()
        server = nil
    }

    private func acquired(_ name: String) {
        if ownedNames.insert(name).inserted { Log.notice("serving \(name): KDE jobs become progressd tasks") }
    }

    /// Another server (Plasma's shell) took the name, or holds it already (progressd waits in
    /// the queue). KIO re-registers its jobs with the new owner, so the tasks made here go:
    /// kept, they would show a job twice or one that no longer reports.
    private func lost(_ name: String) {
        guard ownedNames.remove(name) != nil else { return }
        Log.notice("\(name) has another owner now; its jobs are shown there")
        guard name == KDEInterfaces.serverName else { return }
        for task in restored.keys.sorted(by: { $0.text < $1.text }) {
            context.perform(.remove(task), by: KDEInterfaces.daemonOrigin)
        }
        restored.removeAll()
        for view in Array(views.values) {
            if !view.terminated { context.perform(.remove(view.task), by: KDEInterfaces.daemonOrigin) }
            drop(view)
        }
    }

    // MARK: Calls

    /// A call on a view's object: only its own client may drive it, and not once it ended.
    private func viewCall(_ handler: JobView.Handler, _ call: MethodCall) {
        guard let view = views[call.path] else {
            return call.fail("org.freedesktop.DBus.Error.UnknownObject", "no job view at \(call.path)")
        }
        guard view.owner == call.sender.uniqueName else {
            return call.fail(
                "org.freedesktop.DBus.Error.AccessDenied", "job view \(call.path) belongs to \(view.owner)")
        }
        guard !view.terminated else {
            return call.fail(
                "org.freedesktop.DBus.Error.Failed", "job view \(call.path) was terminated; request a new view")
        }
        handler(view, call)
        if let command = view.takeCommand(limits: context.limits) { perform(command, of: view) }
    }

    private func requestView(_ call: MethodCall, version: JobView.Version) {
        guard call.sender.uniqueName != String(cString: g_dbus_connection_get_unique_name(context.connection)) else {
            // progressd's own forwarder reached itself: never serve its own tasks back.
            return call.fail("org.freedesktop.DBus.Error.AccessDenied", "progressd does not request views from itself")
        }
        // The view is the caller's: who it is decides what its job may be and where it counts.
        context.withIdentity(of: call.sender.uniqueName) { [self] client in
            requestView(call, version: version, by: client)
        }
    }

    private func requestView(_ call: MethodCall, version: JobView.Version, by client: ClientID) {
        do throws(ProgressError) {
            try context.caps.charge(.jobView, to: client.chargeKey)
        } catch {
            return call.fail("org.freedesktop.DBus.Error.LimitsExceeded", error.message)
        }
        let view = makeView(call, version: version, by: client)
        guard let view else { return context.caps.release(.jobView, from: client.chargeKey) }
        views[view.path] = view
        viewsByTask[view.task] = view
        call.reply(Variant.tuple([Variant.objectPath(view.path)]))
    }

    /// Starts the view's task and exports its object; nil (the call failed) if either fails.
    private func makeView(_ call: MethodCall, version: JobView.Version, by client: ClientID) -> JobView? {
        let entry = call.string(0)
        let capabilities = call.int32(version == .v1 ? 2 : 1)
        let hints = version == .v2 ? call.options(2) : []
        var displayName = entry
        if case .string(let name)? = hints.first(where: { $0.key == "application-display-name" })?.value.kind,
           !name.isEmpty {
            displayName = name
        }
        let prefix = "\(KDEInterfaces.taskPrefix)\(KDEInterfaces.nameElement(entry))/"
        let number: UInt64
        let name: TaskName
        if let adopted = adoptRestored(by: client, prefix: prefix) {
            (name, number) = adopted
        } else {
            nextNumber += 1
            number = nextNumber
            do throws(ProgressError) {
                name = try context.frontDoor.name("\(prefix)\(number)")
            } catch {
                call.fail(BusNames.errorName(error), error.message)
                return nil
            }
        }
        var state = JobViewState(title: JobViewState.truncated(displayName, to: context.limits.maxTitleBytes))
        for (key, value) in hints { state.apply(key, value) }
        var update = state.taskUpdate(limits: context.limits)
        update.appId = ClientText.repaired(
            JobViewState.truncated(KDEInterfaces.nameElement(entry), to: context.limits.maxAppIdBytes))
        update.cancellable = capabilities & 1 != 0
        update.pausable = capabilities & 2 != 0
        update.lifetime = .persistent
        if let error = context.perform(.start(name, update), by: KDEInterfaces.inputOrigin(for: client)) {
            if error.name == "AccessDenied", loggedRefusals.insert(client.identity.owner).inserted {
                Log.warning(
                    "KDE job view refused for \(client) (\(client.identity.owner)): \(error.message) "
                        + "(further refusals of it are not logged)")
            }
            call.fail(BusNames.errorName(error), error.message)
            return nil
        }
        let view = JobView(number: number, task: name, client: client, version: version, state: state)
        do throws(DaemonError) {
            view.object = try ExportedObject(on: context.connection, path: view.path, viewInterfaces)
        } catch {
            context.perform(.remove(name), by: KDEInterfaces.inputOrigin(for: client))
            call.fail("org.freedesktop.DBus.Error.Failed", error.description)
            return nil
        }
        return view
    }

    private func perform(_ command: TaskCommand, of view: JobView) {
        if view.terminated { endLive(view) }
        if let error = context.perform(command, by: KDEInterfaces.inputOrigin(for: view.client)) {
            // The task may have been removed or ended by a user meanwhile; the job keeps going.
            Log.notice("KDE job \(view.path) (\(view.task)): \(error.message)")
        }
    }

    /// The view no longer counts as live against its process's cap.
    private func endLive(_ view: JobView) {
        guard !view.countedEnded else { return }
        view.countedEnded = true
        context.caps.release(.jobView, from: view.client.chargeKey)
    }

    /// The first restored task of `client` with a name under `prefix` (the same desktop
    /// entry), with its number, which its new view takes: KIO's V2 tracker requests a view
    /// again for each live job when the server's name gets a new owner.
    private func adoptRestored(by client: ClientID, prefix: String) -> (TaskName, UInt64)? {
        let candidates = restored.compactMap { name, owner in
            owner == client && name.text.hasPrefix(prefix) ? Self.number(of: name).map { (name, $0) } : nil
        }
        guard let first = candidates.min(by: { $0.1 < $1.1 }), views[KDEInterfaces.viewPath(first.1)] == nil else {
            return nil
        }
        restored[first.0] = nil
        return first
    }

    /// The number a view's task name ends with (`kde/<entry>/<n>`).
    private static func number(of name: TaskName) -> UInt64? {
        name.text.split(separator: "/").last.flatMap { UInt64($0) }
    }

    /// The application left the bus (a stream event): its live jobs fail, its views go.
    public func clientLeft(_ client: ClientID) {
        for (name, owner) in restored.sorted(by: { $0.key.text < $1.key.text }) where owner == client {
            restored[name] = nil
            context.perform(
                .fail(name, message: "the application closed unexpectedly"), by: KDEInterfaces.inputOrigin(for: owner))
        }
        for view in views.values.filter({ $0.client == client }) {
            if !view.terminated {
                view.terminated = true
                endLive(view)
                context.perform(
                    .fail(view.task, message: "the application closed unexpectedly"),
                    by: KDEInterfaces.inputOrigin(for: view.client))
            }
            drop(view)
        }
    }

    /// Withdraws the view's object; its task stays (with its outcome, until it lingers out).
    private func drop(_ view: JobView) {
        view.object?.end()
        view.object = nil
        endLive(view)
        views[view.path] = nil
        if viewsByTask[view.task] === view { viewsByTask[view.task] = nil }
    }

    // MARK: Output: requests on the input's tasks become the view's signals

    /// Requests and removals only, which every output hears: no task property.
    public var interest: TaskProperties { [] }

    public func publish(_ batch: ChangeBatch) {
        for change in batch.changes where KDEInterfaces.isKDETask(change.name) {
            if change.kind == .removed { restored[change.name] = nil }
            guard let view = viewsByTask[change.name] else { continue }
            if change.kind == .removed {
                drop(view)
                continue
            }
            guard !view.terminated else { continue }
            for request in change.requests {
                let member = switch request {
                case .cancelRequested: "cancelRequested"
                case .pauseRequested: "suspendRequested"
                case .resumeRequested: "resumeRequested"
                }
                // Both interfaces: a V1 client listens on JobViewV2, a V2 client on JobViewV3.
                for signals in [JobView.v2Signals, JobView.v3Signals] {
                    context.signals.broadcast(signals[member], path: view.path, Variant.tuple([]))
                }
            }
        }
    }
}
