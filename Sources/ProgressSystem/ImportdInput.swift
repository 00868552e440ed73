import CGLib
import ProgressBus
import ProgressModel
import ProgressText

/// systemd-importd's transfers (`machinectl pull-raw`, `importctl`) as tasks
/// `system/importd/<transfer id>`. `Transfer.Progress` emits no change signal, so while
/// transfers run the input polls `ListTransfers` (one call for all of them, every 500 ms,
/// as import1's documentation recommends); `TransferNew` polls at once and `TransferRemoved`
/// gives the outcome (`done`, `canceled`, `failed`). importd offers `Transfer.Cancel()`,
/// so a cancel request reaches it. Transfers name no user, so they show in every session.
final class ImportdInput: SystemJobSource {
    static let path = "/org/freedesktop/import1"
    static let managerInterface = "org.freedesktop.import1.Manager"
    static let pollMicros: Int64 = 500_000

    private var transfers: [UInt32: Transfer] = [:]
    /// Transfers removed while a ListTransfers was under way, which its reply may still list.
    private var ended: Set<UInt32> = []
    private var polling = false
    private lazy var timer = MainLoopTimer(clock: jobs.context.clock) { [unowned self] in poll() }

    struct Transfer {
        let path: String
        let task: TaskName
        /// importd's answer to a refused cancel, shown instead of the source until the next request.
        var refusal: String?
    }

    init(jobs: SystemJobs) { super.init(busName: "org.freedesktop.import1", jobs: jobs) }

    override func serviceAppeared() {
        subscribe(interface: Self.managerInterface, member: "TransferNew", path: Self.path) { [unowned self] _, _, _ in
            poll()
        }
        subscribe(interface: Self.managerInterface, member: "TransferRemoved", path: Self.path) {
            [unowned self] _, _, parameters in
            let id = Variant.uint32Child(parameters, 0)
            ended.insert(id)
            guard let transfer = transfers.removeValue(forKey: id) else { return }
            jobs.end(transfer.task, Self.outcome(Variant.stringChild(parameters, 2)))
        }
        poll()
    }

    override func serviceVanished(_ why: String) {
        timer.cancel()
        polling = false
        for transfer in transfers.values { jobs.end(transfer.task, .failed(why)) }
        transfers.removeAll()
        ended.removeAll()
    }

    static func outcome(_ result: String) -> SystemJobState.Outcome {
        switch result {
        case "done": .finished
        case "canceled": .cancelled
        default: .failed("the transfer failed")
        }
    }

    /// One ListTransfers at a time; the next is armed while any transfer runs.
    private func poll() {
        guard connection != nil, !polling else { return }
        polling = true
        timer.cancel()
        call(Self.path, Self.managerInterface, "ListTransfers", Variant.tuple([]), replyType: "(a(usssdo))") {
            [weak self] result in
            guard let self else { return }
            polling = false
            switch result {
            case .success(let reply):
                let list = Variant.child(reply, 0)
                defer { g_variant_unref(list) }
                let listedIds = Set(Variant.mapChildren(list) { listed($0) })
                ended.formIntersection(listedIds)
            case .failure(let failure):
                Log.notice("importd: ListTransfers failed: \(failure)")
            }
            if !transfers.isEmpty { timer.arm(at: jobs.context.clock.monotonicMicros + Self.pollMicros) }
        }
    }

    /// One (id, type, remote, local, progress, path) of ListTransfers.
    @discardableResult
    private func listed(_ entry: OpaquePointer) -> UInt32 {
        let id = Variant.uint32Child(entry, 0)
        guard !ended.contains(id) else { return id }
        let type = Variant.stringChild(entry, 1)
        let remote = Variant.stringChild(entry, 2)
        let local = Variant.stringChild(entry, 3)
        let progress = Variant.doubleChild(entry, 4)
        let path = Variant.stringChild(entry, 5)
        var state = SystemJobState()
        state.title = jobs.text(ImportdTexts.title(type: type), ["image": local.isEmpty ? remote : local])
        state.message = type.hasPrefix("pull-") ? remote : ""
        // importd gives a negative progress while it does not know (a pipe of unknown size).
        state.fraction = progress.isFinite && progress >= 0 ? progress : nil
        if let transfer = transfers[id] {
            if let refusal = transfer.refusal { state.message = refusal }
            jobs.update(transfer.task, state)
        } else if let task = jobs.taskName(.importd, String(id)) {
            transfers[id] = Transfer(path: path, task: task)
            jobs.start(task, state, cancel: { [weak self] in self?.cancel(id) })
        }
        return id
    }

    private func cancel(_ id: UInt32) {
        guard let transfer = transfers[id] else { return }
        transfers[id]?.refusal = nil
        call(transfer.path, "org.freedesktop.import1.Transfer", "Cancel", Variant.tuple([]), replyType: "()") {
            [weak self] result in
            guard let self, case .failure(let failure) = result else { return }
            transfers[id]?.refusal = failure.message
            jobs.refusedCancel(transfer.task, failure.message)
        }
    }
}
