import CGLib
import ProgressBus
import ProgressCore
import ProgressDaemon
import ProgressText

/// Which system jobs the daemon shows: `--no-system-jobs` (none), `--no-system-jobs-from
/// SERVICE` (not that service's) and `--system-jobs all` (every user's, not only the
/// session user's and those with no user).
public struct SystemJobOptions: Sendable {
    public enum Service: String, CaseIterable, Sendable {
        case packagekit, udisks2, fwupd, importd
    }

    public var services = Set(Service.allCases)
    public var allUsers = false

    public init() {}

    public var any: Bool { !services.isEmpty }
}

/// The system-bus bridge: one input per system service (PackageKit, UDisks2, fwupd,
/// systemd-importd), each reading its service's jobs and making them tasks named
/// `system/<service>/<id>` through the front door as the system identity, which no session
/// client may change (OwnerAccess). The tasks are `persistent` (the service, not a lease,
/// ends them) and never persisted (the service is the truth: after a restart, or when the
/// service comes back, they are read again). As an output it passes a cancel request on a
/// job whose service offers cancelling (UDisks2, importd) to that service.
public final class SystemJobs: DaemonInput {
    /// The bridge speaks as the system identity, the only one OwnerAccess lets change `system/` tasks.
    static let origin = ChangeOrigin.bridge("system", ClientID("(system bus)", identity: .system))

    let context: DaemonContext
    let options: SystemJobOptions
    /// The session user: only their jobs (and jobs of no user) show by default.
    let sessionUID: UInt32
    private let catalog: MessageCatalog
    private let language: String?
    private let bus: SystemBus
    /// What a cancel request on a live job does: the service's own Cancel.
    private var cancellers: [TaskName: () -> Void] = [:]

    public init(context: DaemonContext, options: SystemJobOptions, catalog: MessageCatalog, locale: LocaleName) {
        self.context = context
        self.options = options
        self.catalog = catalog
        language = catalog.language(for: locale)
        sessionUID = getuid()
        bus = SystemBus(clock: context.clock)
        if options.services.contains(.packagekit) { bus.add(PackageKitInput(jobs: self)) }
        if options.services.contains(.udisks2) { bus.add(UDisksInput(jobs: self)) }
        if options.services.contains(.fwupd) { bus.add(FwupdInput(jobs: self)) }
        if options.services.contains(.importd) { bus.add(ImportdInput(jobs: self)) }
    }

    /// Connects to the system bus (asynchronously: the daemon serves meanwhile).
    public func start() {
        bus.connect()
    }

    /// The daemon is stopping: the system bus goes, and the jobs' tasks are left as they are.
    public func stop() {
        bus.stop()
    }

    /// A title or message in the daemon's locale.
    func text(_ message: MessageCatalog.Message, _ values: [String: String] = [:]) -> String {
        catalog.text(message, language: language, filling: values)
    }

    /// Whether a job started by `uid` shows (nil: the service names no user).
    func shows(uid: UInt32?) -> Bool {
        guard let uid else { return true }
        return options.allUsers || uid == sessionUID
    }

    /// The task name of a service's job; nil (logged) if the id can not be one.
    func taskName(_ service: SystemJobOptions.Service, _ id: String) -> TaskName? {
        do throws(ProgressError) {
            return try context.frontDoor.name("\(OwnerAccess.systemPrefix)\(service.rawValue)/\(id)")
        } catch {
            Log.warning("system job \(id) of \(service.rawValue) has no task name: \(error.message)")
            return nil
        }
    }

    // MARK: Into the front door, as the system identity

    func start(_ name: TaskName, _ job: SystemJobState, cancel: (() -> Void)? = nil) {
        var update = job.update(limits: context.limits)
        update.lifetime = .persistent
        update.cancellable = cancel != nil
        cancellers[name] = cancel
        perform(.start(name, update))
    }

    func update(_ name: TaskName, _ job: SystemJobState) {
        perform(.update(name, job.update(limits: context.limits)))
    }

    func end(_ name: TaskName, _ outcome: SystemJobState.Outcome) {
        cancellers[name] = nil
        guard isLive(name) else { return }
        switch outcome {
        case .finished: perform(.finish(name))
        case .cancelled:
            var update = TaskUpdate()
            update.state = .cancelled
            perform(.update(name, update))
        case .failed(let message):
            perform(.fail(name, message: SystemJobState.bounded(message, to: context.limits.maxMessageBytes)))
        }
    }

    /// The job waits on its front end (a question to the user): the task stays live,
    /// indeterminate, with `message` saying what it waits for.
    func waiting(_ name: TaskName, _ message: String) {
        guard isLive(name) else { return }
        var update = TaskUpdate()
        update.indeterminate = true
        update.message = SystemJobState.bounded(message, to: context.limits.maxMessageBytes)
        perform(.update(name, update))
    }

    func remove(_ name: TaskName) {
        cancellers[name] = nil
        if context.read(.tasks([]), { $0.contains(name) }) { perform(.remove(name)) }
    }

    private func isLive(_ name: TaskName) -> Bool {
        context.read(.tasks([])) { $0.task(name)?.isLive == true }
    }

    /// The service refused a cancel: its answer becomes the task's message and the request
    /// is withdrawn, so that asking again calls the service again.
    func refusedCancel(_ name: TaskName, _ answer: String) {
        guard isLive(name) else { return }
        var update = TaskUpdate()
        update.message = SystemJobState.bounded(answer, to: context.limits.maxMessageBytes)
        update.withdrawsCancelRequest = true
        perform(.update(name, update))
    }

    private func perform(_ command: TaskCommand) {
        if let error = context.perform(command, by: Self.origin) {
            // A full store (--max-tasks) or a name a session client ended: the job goes on
            // without a task, logged once per kind of error.
            if loggedErrors.insert(error.name).inserted { Log.notice("system job: \(error.message)") }
        }
    }

    private var loggedErrors: Set<String> = []

    // MARK: Output: cancel requests go to the service

    /// Cancel requests only, which every output hears: no task property.
    public var interest: TaskProperties { [] }

    public func publish(_ batch: ChangeBatch) {
        for change in batch.changes where change.requests.contains(.cancelRequested) {
            cancellers[change.name]?()
        }
    }
}
