import ProgressBus
import ProgressModel
import ProgressText

/// PackageKit's transactions (GNOME Software, KDE Discover, `pkcon`) as tasks
/// `system/packagekit/<transaction id>`. The list comes from `GetTransactionList` when
/// packagekitd appears and from `TransactionListChanged` after; each transaction is read
/// with `GetAll` and then followed through `PropertiesChanged`, never `Properties.Get`
/// (a Get of `RemainingTime` aborts Debian 12's packagekitd 1.2.6). `Finished` ends the
/// task, `Destroy` removes it. Query transactions (search, resolve, get-*) are not tasks:
/// they take moments and would only flicker on docks and in screen readers.
///
/// A transaction that ends asking its front end a question (a key to trust, a licence,
/// untrusted packages, a medium, a repair) is no failure yet: PackageKit's client library
/// (pkcon, GNOME Software, Discover) asks, then runs the job again as a new transaction of
/// the same sender and role. That transaction carries on the first one's task; only when
/// none comes within `retryWindowMicros` does the task fail, with the question as message.
final class PackageKitInput: SystemJobSource {
    static let path = "/org/freedesktop/PackageKit"
    static let transactionInterface = "org.freedesktop.PackageKit.Transaction"
    /// PkExitEnum's answers that a front end follows with a new transaction: key-required,
    /// eula-required, media-change-required, need-untrusted, repair-required.
    static let retriedExits: Set<UInt32> = [4, 5, 7, 8, 11]
    static let retryWindowMicros: Int64 = 10_000_000
    private var transactions: [String: Transaction] = [:]
    /// Tasks whose transaction asked a question, by the sender and role that would retry it.
    private var awaitingRetry: [RetryKey: AwaitedRetry] = [:]
    private lazy var retryTimer = MainLoopTimer(clock: jobs.context.clock) { [unowned self] in retryWindowsPassed() }

    struct RetryKey: Hashable {
        let sender: String
        let role: UInt32
    }

    struct AwaitedRetry {
        let task: TaskName
        let outcome: SystemJobState.Outcome
        let deadline: Int64
    }

    init(jobs: SystemJobs) { super.init(busName: "org.freedesktop.PackageKit", jobs: jobs) }

    final class Transaction {
        let path: String
        var role: UInt32 = 0
        var status: UInt32 = 0
        var percentage: UInt32 = 101
        var lastPackage = ""
        var uid: UInt32?
        /// The front end's connection on the system bus, which would send a retry.
        var sender: String?
        var appId: String?
        /// GetAll has answered: the role and user are known.
        var known = false
        var errorDetails: String?
        var task: TaskName?
        var ended = false
        init(path: String) { self.path = path }
    }

    override func serviceAppeared() {
        subscribe(interface: busName, member: "TransactionListChanged", path: Self.path) {
            [unowned self] _, _, parameters in
            listed(Variant.stringsChild(parameters, 0))
        }
        subscribe(
            interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged", arg0: Self.transactionInterface
        ) { [unowned self] path, _, parameters in
            guard let transaction = transactions[path] else { return }
            apply(VariantDictionary(child: 1, of: parameters), to: transaction)
            refresh(transaction)
        }
        subscribe(interface: Self.transactionInterface, member: nil) { [unowned self] path, member, parameters in
            transactionSignal(path, member, parameters)
        }
        call(Self.path, busName, "GetTransactionList", Variant.tuple([]), replyType: "(ao)") { [weak self] result in
            switch result {
            case .success(let reply): self?.listed(Variant.stringsChild(reply, 0))
            case .failure(let failure): Log.notice("PackageKit: GetTransactionList failed: \(failure)")
            }
        }
    }

    override func serviceVanished(_ why: String) {
        for transaction in transactions.values where !transaction.ended {
            if let task = transaction.task { jobs.end(task, .failed(why)) }
        }
        transactions.removeAll()
        for awaited in awaitingRetry.values { jobs.end(awaited.task, .failed(why)) }
        awaitingRetry.removeAll()
        retryTimer.cancel()
    }

    /// The transactions packagekitd has now: new ones are read; ones that left the list
    /// before they became tasks are forgotten (those with tasks end with `Finished`).
    private func listed(_ paths: [String]) {
        for path in paths where transactions[path] == nil {
            let transaction = Transaction(path: path)
            transactions[path] = transaction
            read(transaction)
        }
        let current = Set(paths)
        for (path, transaction) in transactions where !current.contains(path) && transaction.task == nil {
            transactions[path] = nil
        }
    }

    private func read(_ transaction: Transaction) {
        guard let connection else { return }
        call(
            transaction.path, "org.freedesktop.DBus.Properties", "GetAll",
            Variant.tuple([Variant.string(Self.transactionInterface)]), replyType: "(a{sv})"
        ) { [weak self] result in
            guard let self, transactions[transaction.path] === transaction else { return }
            switch result {
            case .success(let reply):
                let properties = VariantDictionary(child: 0, of: reply)
                apply(properties, to: transaction)
                transaction.known = true
                if let sender = properties.string("Sender"), !sender.isEmpty {
                    transaction.sender = sender
                    FrontEnd.appId(of: sender, on: connection, cancellable: calls) { [weak self] appId in
                        guard let self, let appId else { return }
                        transaction.appId = appId
                        refresh(transaction)
                    }
                }
                refresh(transaction)
            case .failure:
                // Gone between the list and the read: nothing to show.
                transactions[transaction.path] = nil
            }
        }
    }

    /// ElapsedTime, RemainingTime and Speed are not read: progressd estimates the rate itself.
    private func apply(_ properties: VariantDictionary, to transaction: Transaction) {
        if let role = properties.unsigned("Role") { transaction.role = UInt32(clamping: role) }
        if let status = properties.unsigned("Status") { transaction.status = UInt32(clamping: status) }
        if let percentage = properties.unsigned("Percentage") { transaction.percentage = UInt32(clamping: percentage) }
        if let package = properties.string("LastPackage") { transaction.lastPackage = package }
        if let uid = properties.unsigned("Uid") { transaction.uid = UInt32(clamping: uid) }
    }

    private func transactionSignal(_ path: String, _ member: String, _ parameters: OpaquePointer) {
        guard let transaction = transactions[path] else { return }
        switch member {
        case "ErrorCode":
            transaction.errorDetails = Variant.stringChild(parameters, 1)
        case "Finished":
            transaction.ended = true
            guard let task = transaction.task else { return }
            let exit = Variant.uint32Child(parameters, 0)
            let outcome = Self.outcome(exit: exit, details: transaction.errorDetails)
            if Self.retriedExits.contains(exit), let sender = transaction.sender {
                awaitRetry(of: task, from: RetryKey(sender: sender, role: transaction.role), outcome: outcome)
                // The task is the retry's now: this transaction's Destroy must not remove it.
                transaction.task = nil
            } else {
                jobs.end(task, outcome)
            }
        case "Destroy":
            transactions[path] = nil
            if let task = transaction.task { jobs.remove(task) }
        default: break
        }
    }

    /// Starts or updates the task once the transaction's role is known and one people wait for.
    private func refresh(_ transaction: Transaction) {
        guard transaction.known, !transaction.ended, jobs.shows(uid: transaction.uid),
              let title = PackageKitTexts.title(role: transaction.role, status: transaction.status) else { return }
        var state = SystemJobState()
        state.title = jobs.text(title)
        state.message = PackageKitTexts.package(transaction.lastPackage)
        if state.message.isEmpty, let waiting = PackageKitTexts.waiting(status: transaction.status) {
            state.message = jobs.text(waiting)
        }
        state.fraction = transaction.percentage <= 100 ? Double(transaction.percentage) / 100 : nil
        state.appId = transaction.appId
        if let task = transaction.task {
            jobs.update(task, state)
        } else if let sender = transaction.sender,
                  let awaited = awaitingRetry.removeValue(forKey: RetryKey(sender: sender, role: transaction.role)) {
            transaction.task = awaited.task
            jobs.update(awaited.task, state)
        } else if let task = jobs.taskName(.packagekit, String(transaction.path.split(separator: "/").last ?? "")) {
            transaction.task = task
            jobs.start(task, state)
        }
    }

    /// Keeps the task of a transaction that asked a question until its retry comes; one
    /// retry awaited per sender and role, so a second question ends the first one's wait.
    private func awaitRetry(of task: TaskName, from key: RetryKey, outcome: SystemJobState.Outcome) {
        if let earlier = awaitingRetry[key] { jobs.end(earlier.task, earlier.outcome) }
        let deadline = jobs.context.clock.monotonicMicros + Self.retryWindowMicros
        awaitingRetry[key] = AwaitedRetry(task: task, outcome: outcome, deadline: deadline)
        if case .failed(let question) = outcome { jobs.waiting(task, question) }
        retryTimer.arm(at: deadline)
    }

    /// No retry came in time: those tasks end as their transaction did.
    private func retryWindowsPassed() {
        let now = jobs.context.clock.monotonicMicros
        for (key, awaited) in awaitingRetry where awaited.deadline <= now {
            awaitingRetry[key] = nil
            jobs.end(awaited.task, awaited.outcome)
        }
        if let next = awaitingRetry.values.map(\.deadline).min() { retryTimer.arm(at: next) }
    }

    /// PkExitEnum: success, cancelled (or cancelled for a transaction of higher priority),
    /// or a failure with the ErrorCode's details, else the exit's name.
    static func outcome(exit: UInt32, details: String?) -> SystemJobState.Outcome {
        switch exit {
        case 1: .finished
        case 3, 9: .cancelled
        default:
            .failed(
                details.flatMap { $0.isEmpty ? nil : $0 }
                    ?? "PackageKit: \(exitNames[Int(exit)] ?? "failed (exit \(exit))")")
        }
    }

    static let exitNames = [
        2: "failed", 4: "a key is required", 5: "a licence must be accepted", 6: "killed",
        7: "a media change is required", 8: "untrusted packages are needed", 10: "transaction skipped",
        11: "repair required",
    ]
}
