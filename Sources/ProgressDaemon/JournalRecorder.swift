import ProgressBus
import ProgressCore

/// Persistence, the one listener that runs before the reply: a transition (a task came or
/// went, its state or a request changed) is written and synced before the caller hears
/// success; other changes are saved at most once a second per task. Transitions wait here
/// until the stream commits the group they arrived in, and go out in one write and one sync.
final class JournalRecorder: ChangeRecorder {
    private let journal: TaskJournal
    private let frontDoor: TaskFrontDoor
    private let clock: Clock
    private var throttle = SaveThrottle()
    /// Transitions waiting for the group's sync: each task's latest record, or nil for a
    /// removal, in the order the tasks first changed.
    private var pending: [String: TaskRecord?] = [:]
    private var pendingOrder: [String] = []
    private lazy var timer = MainLoopTimer(clock: clock) { [unowned self] in saveDue() }

    init(journal: TaskJournal, frontDoor: TaskFrontDoor, clock: Clock) {
        self.journal = journal
        self.frontDoor = frontDoor
        self.clock = clock
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

    func commit() {
        var records: [TaskRecord] = []
        var removed: [String] = []
        for name in pendingOrder {
            if let record = pending[name]! { records.append(record) } else { removed.append(name) }
        }
        pending.removeAll(keepingCapacity: true)
        pendingOrder.removeAll(keepingCapacity: true)
        journal.write(records, removed: removed)
    }

    /// The values that changed since the last save, as a read shows them: the values held
    /// at the front door are applied first (and marked here as they go by).
    private func saveDue() {
        frontDoor.read(.tasks([])) { tasks in
            let now = clock.monotonicMicros
            guard let names = throttle.takeDue(now: now) else {
                // Fired a little early: try again when the interval is up.
                if let due = throttle.dueTime { timer.arm(at: due) }
                return
            }
            // The group's transitions go first, so a fresher save is never followed by an older record.
            if hasPending { commit() }
            journal.write(names.compactMap(tasks.record(of:)), removed: [])
        }
    }

    /// Writes what waits for the once-a-second save; on a clean stop.
    func saveNow() {
        timer.cancel()
        frontDoor.read(.tasks([])) { tasks in
            if hasPending { commit() }
            let records = throttle.takeAll(now: clock.monotonicMicros).compactMap(tasks.record(of:))
            if !records.isEmpty { journal.write(records, removed: []) }
        }
    }
}
