import ProgressBus
import ProgressCore

/// Persistence, the one listener that runs before the reply: a transition (a task came or
/// went, its state or a request changed) is written and synced before the caller hears
/// success; other changes are saved at most once a second per task.
final class JournalRecorder: ChangeRecorder {
    private let journal: TaskJournal
    private let store: TaskStore
    private let clock: Clock
    private var throttle = SaveThrottle()
    private lazy var timer = MainLoopTimer(clock: clock) { [unowned self] in saveDue() }

    init(journal: TaskJournal, store: TaskStore, clock: Clock) {
        self.journal = journal
        self.store = store
        self.clock = clock
        journal.attach { [unowned store] in store.allRecords }
    }

    func record(_ batch: ChangeBatch) {
        var records: [TaskRecord] = []
        var removed: [String] = []
        let now = clock.monotonicMicros
        for change in batch.changes {
            if change.kind == .removed {
                removed.append(change.name.text)
                throttle.forget(change.name)
            } else if change.mustPersistNow, let record = store.record(of: change.name) {
                records.append(record)
                throttle.forget(change.name)
            } else if !change.properties.isEmpty, let due = throttle.markDirty(change.name, now: now) {
                timer.arm(at: due)
            }
        }
        if !records.isEmpty || !removed.isEmpty { journal.write(records, removed: removed) }
    }

    private func saveDue() {
        let now = clock.monotonicMicros
        guard let names = throttle.takeDue(now: now) else {
            // Fired a little early: try again when the interval is up.
            if let due = throttle.dueTime { timer.arm(at: due) }
            return
        }
        journal.write(names.compactMap(store.record(of:)), removed: [])
    }

    /// Writes what waits for the once-a-second save; on a clean stop.
    func saveNow() {
        timer.cancel()
        let records = throttle.takeAll(now: clock.monotonicMicros).compactMap(store.record(of:))
        if !records.isEmpty { journal.write(records, removed: []) }
    }
}
