import ProgressBus
import ProgressModel
import ProgressCore
import ProgressPolicies

/// Persistence, the one listener that runs before the reply: a transition (a task came or
/// went, its state or a request changed) is written and synced before the caller hears
/// success; other changes are saved at most once a second per task. Transitions wait here
/// until the stream commits the group they arrived in, and go out in one write and one sync.
///
/// A write the disk refuses (full, EIO, read-only) refuses its group: the stream takes it
/// back and every caller in it hears StorageFull or StorageFailed. The daemon is degraded
/// then, and says so once (the log, `StorageState`): what is in memory is still served; a
/// task that is not `persistent` (it ends with its lease or its caller anyway) is kept in
/// memory only; a persistent task's transition is still tried, each batch on its own, and
/// refused while the disk refuses it. Every `storageRetryMicros` the recorder tries to
/// rewrite the state in full (a compaction): once that succeeds, everything in memory is on
/// the disk again and the daemon is whole.
final class JournalRecorder: ChangeRecorder {
    private let journal: TaskJournal
    private let frontDoor: TaskFrontDoor
    private let clock: MainLoopClock
    private var throttle = SaveThrottle()
    /// Transitions waiting for the group's sync: each task's latest record, or nil for a
    /// removal, in the order the tasks first changed.
    private var pending: [String: TaskRecord?] = [:]
    private var pendingOrder: [String] = []
    private lazy var timer = MainLoopTimer(clock: clock) { [unowned self] in saveDue() }
    /// Why the disk refused the last write, while the daemon is degraded; nil when it is whole.
    private(set) var refusal: ProgressError?
    /// Told when `refusal` comes or goes (the manager's StorageState), from the main loop:
    /// not in the middle of the commit that learned it.
    var storageChanged: () -> Void = {}
    private lazy var changedTimer = MainLoopTimer(clock: clock) { [unowned self] in storageChanged() }
    private let retryMicros: Int64
    private lazy var retryTimer = MainLoopTimer(clock: clock) { [unowned self] in retry() }

    init(journal: TaskJournal, frontDoor: TaskFrontDoor, clock: MainLoopClock) {
        self.journal = journal
        self.frontDoor = frontDoor
        self.clock = clock
        retryMicros = frontDoor.limits.storageRetryMicros
        // A compaction comes in the middle of a write: it takes what was recorded, no read.
        journal.attach(
            recordsSource: { [unowned frontDoor] in frontDoor.recordedTasks() },
            recordCount: { [unowned frontDoor] in frontDoor.recordedTaskCount })
    }

    func record(_ batch: ChangeBatch) {
        // Restored tasks are what the journal holds already.
        if batch.origin.isRestore { return }
        let now = clock.monotonicMicros
        for change in batch.changes {
            // Degraded, a task that ends with its lease or caller is kept in memory only; the
            // rewrite that makes the daemon whole again saves it.
            if refusal != nil && change.task.lifetime != .persistent { continue }
            if change.kind == .removed {
                hold(change.name.text, nil)
                throttle.forget(change.name)
            } else if change.mustPersistNow {
                // The task as the change left it: a later change in the same group is its own.
                if let record = frontDoor.properties.persistedRecord(of: change.task) { hold(change.name.text, record) }
                throttle.forget(change.name)
            } else if !change.properties.isEmpty, let due = throttle.markDirty(change.name, now: now) {
                timer.arm(at: due)
            }
        }
    }

    /// Only a task's last state in the group matters: a task started and removed again is
    /// one removal, a task removed and started again one record.
    private func hold(_ name: String, _ record: TaskRecord?) {
        if pending.updateValue(record, forKey: name) == nil { pendingOrder.append(name) }
    }

    var hasPending: Bool { !pendingOrder.isEmpty }
    var commitsAtOnce: Bool { refusal != nil }

    /// The manager's StorageState: "ok", or why writes are refused ("full", "failed").
    var storageState: String {
        switch refusal {
        case nil: "ok"
        case .storageFull?: "full"
        default: "failed"
        }
    }

    func commit() throws(ProgressError) {
        var records: [TaskRecord] = []
        var removed: [String] = []
        for name in pendingOrder {
            if let record = pending[name]! { records.append(record) } else { removed.append(name) }
        }
        pending.removeAll(keepingCapacity: true)
        pendingOrder.removeAll(keepingCapacity: true)
        try write(records, removed: removed)
    }

    /// A write; one the disk refuses makes the daemon degraded.
    private func write(_ records: [TaskRecord], removed: [String]) throws(ProgressError) {
        do throws(ProgressError) {
            try journal.write(records, removed: removed)
        } catch {
            degrade(error)
            throw error
        }
    }

    private func degrade(_ error: ProgressError) {
        let first = refusal == nil
        let changed = refusal?.name != error.name
        refusal = error
        if first {
            Log.error(
                "degraded: \(error.message). What is in memory is still served; tasks that are not persistent are "
                    + "kept in memory only, and persistent tasks' changes are refused until the state directory "
                    + "takes writes again (tried every \(retryMicros / 1_000_000) s)")
            retryTimer.arm(at: clock.monotonicMicros + retryMicros)
        }
        if changed { changedTimer.arm(at: clock.monotonicMicros) }
    }

    /// Rewrites the state in full, through the door, when no group waits for its sync (a
    /// rewrite then would put changes on the disk before they are kept or refused).
    private func retry() {
        guard let before = refusal else { return }
        defer { if refusal != nil { retryTimer.arm(at: clock.monotonicMicros + retryMicros) } }
        guard !hasPending else { return }
        frontDoor.read(.tasks([])) { _ in
            do throws(ProgressError) {
                try journal.rewrite()
            } catch {
                refusal = error
                if error.name != before.name { changedTimer.arm(at: clock.monotonicMicros) }
                return
            }
            refusal = nil
            let count = frontDoor.recordedTaskCount
            Log.notice("the state directory takes writes again: wrote every task afresh (\(count) tasks)")
            changedTimer.arm(at: clock.monotonicMicros)
        }
    }

    /// The values that changed since the last save, as a read shows them: the values held
    /// at the front door are applied first (and marked here as they go by).
    private func saveDue() {
        frontDoor.read(.tasks([])) { tasks in
            let now = clock.monotonicMicros
            // The group's transitions go first, so a fresher save is never followed by an older
            // record; the stream commits them (and refuses their group if the disk does), soon.
            if hasPending { return timer.arm(at: now + 2 * frontDoor.limits.groupCommitMaxDelayMicros) }
            guard let names = throttle.takeDue(now: now) else {
                // Fired a little early: try again when the interval is up.
                if let due = throttle.dueTime { timer.arm(at: due) }
                return
            }
            let kept = refusal == nil ? names : names.filter { tasks.task($0)?.lifetime == .persistent }
            let records = kept.compactMap(tasks.record(of:))
            // A value the disk does not take is saved by the rewrite that ends the degraded state.
            try? write(records, removed: [])
        }
    }

    /// Writes what waits for the once-a-second save; on a clean stop.
    func saveNow() {
        timer.cancel()
        frontDoor.read(.tasks([])) { tasks in
            if hasPending { try? commit() }
            let records = throttle.takeAll(now: clock.monotonicMicros).compactMap(tasks.record(of:))
            if !records.isEmpty { try? write(records, removed: []) }
        }
    }
}
