import CGLib
import ProgressBus
import ProgressModel
import ProgressPolicies
import ProgressDaemon

/// Shows progressd's tasks in Plasma: while another process owns `org.kde.JobViewServer`,
/// each top-level task that did not come from the KDE input gets a view there, through
/// JobViewServerV2.requestView (asynchronous, with the app id as desktop entry and the
/// capabilities), then JobViewV3.update at the coalesced signal rate and terminate with the
/// outcome. The view's cancelRequested/suspendRequested/resumeRequested become requests at
/// the front door. When the server goes and another (or the same) comes back, the live
/// tasks are requested again.
///
/// No loops: tasks under `kde/` (the KDE input's) are never forwarded; a server whose owner
/// is progressd's own connection is not a server to forward to; calls go to the owner's
/// unique name, so a change of owner can not redirect them to progressd itself. Plasma
/// re-broadcasts forwarded jobs as LauncherEntry updates with `proxied-for: kuiserver` from
/// /org/kde/notificationmanager/jobs: the LauncherEntry input (ProgressDesktop) must drop
/// those, which is documented with it and in the README.
public final class JobViewForwarder: DaemonInput {
    private let context: DaemonContext
    private var watchID: UInt32 = 0
    private var signalSubscription: UInt32 = 0
    /// The foreign server's unique name, while there is one.
    public private(set) var server: String? { didSet { context.stream.interestChanged(self) } }
    /// Grows with every change of server, so replies meant for an old one are dropped.
    private var generation = 0
    private var jobs: [TaskName: Job] = [:]
    private var tasksByPath: [String: TaskName] = [:]
    private var coalescer: Coalescer<TaskName, TaskProperties>
    private lazy var timer = MainLoopTimer(clock: context.clock) { [unowned self] in sendDue() }

    private final class Job {
        let generation: Int
        /// The view's path once requestView answered.
        var path: String?
        var terminated = false
        init(generation: Int) { self.generation = generation }
    }

    public init(context: DaemonContext) {
        self.context = context
        coalescer = Coalescer(maxSignalsPerSecond: context.limits.maxSignalsPerSecond)
    }

    private var userData: gpointer { Unmanaged.passUnretained(self).toOpaque() }
    private var ownName: String { String(cString: g_dbus_connection_get_unique_name(context.connection)) }

    public func start() {
        watchID = g_bus_watch_name_on_connection(
            context.connection, KDEInterfaces.serverName, G_BUS_NAME_WATCHER_FLAGS_NONE,
            { _, _, owner, userData in
                assertOnMainLoop()
                Unmanaged<JobViewForwarder>.fromOpaque(userData!).takeUnretainedValue()
                    .serverAppeared(String(cString: owner!))
            },
            { _, _, userData in
                assertOnMainLoop()
                Unmanaged<JobViewForwarder>.fromOpaque(userData!).takeUnretainedValue().serverGone()
            },
            userData, nil)
    }

    public func stop() {
        // Views on the server end with progressd: a job shown forever would be worse.
        for (name, job) in jobs where !job.terminated {
            terminate(name, job, code: JobViewState.userCancelledCode, message: "")
        }
        serverGone()
        if watchID != 0 { g_bus_unwatch_name(watchID) }
        watchID = 0
    }

    private func serverAppeared(_ owner: String) {
        serverGone()
        // progressd serving the name itself (the KDE input) is no server to forward to.
        guard owner != ownName else { return }
        server = owner
        Log.notice("\(KDEInterfaces.serverName) is served by \(owner): forwarding tasks to it")
        signalSubscription = g_dbus_connection_signal_subscribe(
            context.connection, owner, KDEInterfaces.viewV3Interface, nil, nil, nil, G_DBUS_SIGNAL_FLAGS_NONE,
            { _, sender, path, _, member, _, userData in
                assertOnMainLoop()
                Unmanaged<JobViewForwarder>.fromOpaque(userData!).takeUnretainedValue().viewSignal(
                    sender: String(cString: sender!), path: String(cString: path!), member: String(cString: member!))
            },
            userData, nil)
        let forwarded = context.read(.tasks([])) { tasks in
            tasks.namesInOrder.compactMap { tasks.task($0) }.filter(forwards)
        }
        for task in forwarded { request(task) }
    }

    private func serverGone() {
        generation += 1
        server = nil
        jobs.removeAll()
        tasksByPath.removeAll()
        timer.cancel()
        coalescer = Coalescer(maxSignalsPerSecond: context.limits.maxSignalsPerSecond)
        if signalSubscription != 0 { g_dbus_connection_signal_unsubscribe(context.connection, signalSubscription) }
        signalSubscription = 0
    }

    /// Live, top-level, and not the KDE input's.
    private func forwards(_ task: ProgressTask) -> Bool {
        !KDEInterfaces.isKDETask(task.name) && task.parent == nil && task.isLive
    }

    private func request(_ task: ProgressTask) {
        let name = task.name
        guard let server, jobs[name] == nil else { return }
        let job = Job(generation: generation)
        jobs[name] = job
        let entry = task.appId.hasSuffix(".desktop") ? String(task.appId.dropLast(8)) : task.appId
        let capabilities = Int32((task.cancellable ? 1 : 0) | (task.pausable ? 2 : 0))
        // No `immediate` hint: Plasma's own 500 ms delay keeps short tasks out of its list.
        let parameters = Variant.tuple([
            Variant.string(entry.isEmpty ? "progressd" : entry), g_variant_new_int32(capabilities),
            properties(of: task),
        ])
        BusCall.call(
            context.connection, destination: server, path: KDEInterfaces.serverPath,
            interface: KDEInterfaces.serverV2Interface, method: "requestView", parameters, replyType: "(o)"
        ) { [weak self] result in
            guard let self, job.generation == self.generation, self.jobs[name] === job else { return }
            switch result {
            case .success(let reply):
                let path = Variant.stringChild(reply, 0)
                job.path = path
                tasksByPath[path] = name
                // Plasma before 5.22 ignores the hints: the full state again, as KIO does.
                let task = context.read(.tasks([])) { $0.task(name) }
                guard let task else { return terminate(name, job, code: JobViewState.userCancelledCode, message: "") }
                sendUpdate(name, task)
                if !task.isLive { finish(name, task) }
            case .failure(let failure):
                // Kept (without a path), so the task is not requested again from this server.
                Log.warning("\(server) refused a job view for task \(name): \(failure)")
            }
        }
    }

    /// With no server, no value matters: its arrival asks for a job for every task there is.
    public var interest: TaskProperties { server == nil ? [] : .all }

    public func publish(_ batch: ChangeBatch) {
        guard server != nil else { return }
        let now = context.clock.monotonicMicros
        for change in batch.changes where !KDEInterfaces.isKDETask(change.name) {
            switch change.kind {
            case .created:
                if forwards(change.task) { request(change.task) }
            case .removed:
                coalescer.forget(change.name)
                guard let job = jobs.removeValue(forKey: change.name) else { continue }
                if let path = job.path { tasksByPath[path] = nil }
                if !job.terminated, let last = change.lastValue { terminate(change.name, job, outcome: last) }
            case .updated:
                if change.isRestart, let job = jobs[change.name], job.terminated {
                    jobs[change.name] = nil
                    if let path = job.path { tasksByPath[path] = nil }
                }
                // Judged by the task as the change left it, not as it is now.
                let task = change.task
                guard let job = jobs[change.name] else {
                    if forwards(task) { request(task) }
                    continue
                }
                guard job.path != nil, !job.terminated else { continue }
                if !task.isLive {
                    finish(change.name, task)
                    continue
                }
                switch coalescer.record(change.name, change.properties, immediate: change.isImmediate, now: now) {
                case .signal: sendUpdate(change.name, task)
                case .hold(let until): timer.arm(at: until)
                case .alsoHeld, .none: break
                }
            }
        }
    }

    /// The updates that fell due, as a read shows the tasks (held values applied first).
    private func sendDue() {
        context.read(.tasks([])) { tasks in
            for entry in coalescer.takeDue(now: context.clock.monotonicMicros) {
                if let task = tasks.task(entry.name) { sendUpdate(entry.name, task) }
            }
        }
        if let next = coalescer.nextDeadline { timer.arm(at: next) }
    }

    private func sendUpdate(_ name: TaskName, _ task: ProgressTask) {
        guard let server, let job = jobs[name], let path = job.path, !job.terminated else { return }
        BusCall.send(
            context.connection, destination: server, path: path, interface: KDEInterfaces.viewV3Interface,
            method: "update", Variant.tuple([properties(of: task)]))
    }

    /// The last values, then terminate with the outcome.
    private func finish(_ name: TaskName, _ task: ProgressTask) {
        guard let job = jobs[name], !job.terminated else { return }
        coalescer.forget(name)
        sendUpdate(name, task)
        terminate(name, job, outcome: task)
    }

    private func terminate(_ name: TaskName, _ job: Job, outcome task: ProgressTask) {
        switch task.state {
        case .finished: terminate(name, job, code: 0, message: "")
        case .failed: terminate(name, job, code: JobViewState.userDefinedErrorCode,
                                message: task.message.isEmpty ? "failed" : task.message)
        // Cancelled, or removed while it ran: KIO's user-cancelled code, which Plasma shows quietly.
        default: terminate(name, job, code: JobViewState.userCancelledCode, message: "")
        }
    }

    private func terminate(_ name: TaskName, _ job: Job, code: UInt32, message: String) {
        job.terminated = true
        guard let server, let path = job.path else { return }
        BusCall.send(
            context.connection, destination: server, path: path, interface: KDEInterfaces.viewV3Interface,
            method: "terminate",
            Variant.tuple([g_variant_new_uint32(code), Variant.string(message), Variant.container("a{sv}") { _ in }]))
    }

    /// JobViewV3's update keys for a task (the ones plasmashell reads, libnotificationmanager job_p.cpp).
    private func properties(of task: ProgressTask) -> OpaquePointer {
        Variant.container("a{sv}") { builder in
            Variant.addEntry(builder, "title", Variant.string(task.displayTitle))
            Variant.addEntry(builder, "infoMessage", Variant.string(task.message))
            if let percent = task.wholePercent {
                Variant.addEntry(builder, "percent", g_variant_new_uint32(UInt32(percent)))
            }
            if task.total > 0 {
                let suffix = switch task.unit {
                case "bytes", "": "Bytes"
                case "files": "Files"
                case "directories", "dirs": "Directories"
                default: "Items"
                }
                Variant.addEntry(builder, "processed" + suffix, g_variant_new_uint64(guint64(task.completed)))
                Variant.addEntry(builder, "total" + suffix, g_variant_new_uint64(guint64(task.total)))
                if suffix == "Bytes" && task.rate > 0 {
                    Variant.addEntry(builder, "speed", g_variant_new_uint64(guint64(task.rate)))
                }
            }
            Variant.addEntry(builder, "suspended", g_variant_new_boolean(task.state == .paused ? 1 : 0))
        }
    }

    private func viewSignal(sender: String, path: String, member: String) {
        // A connection hears its own broadcasts; those are never the server's.
        guard sender != ownName, let name = tasksByPath[path], let job = jobs[name], !job.terminated else { return }
        let command: TaskCommand? = switch member {
        case "cancelRequested": .requestCancel(name)
        case "suspendRequested": .requestPause(name)
        case "resumeRequested": .requestResume(name)
        default: nil
        }
        if member == "updateRequested" {
            if let task = context.read(.tasks([]), { $0.task(name) }) { sendUpdate(name, task) }
            return
        }
        guard let command else { return }
        if let error = context.perform(command, by: KDEInterfaces.forwarderOrigin) {
            Log.notice("\(member) from \(sender) for task \(name): \(error.message)")
        }
    }
}
