import ProgressModel

/// Which task changed what, and when, by sequence number: what `Changes(since)` answers
/// from, so that a poller pays for what changed since its last poll, not for every task.
///
/// - Each live task's latest change is found through `recent`, an append-only list in
///   sequence order; an entry is stale once its task changed again, and the list is
///   compacted when stale entries outnumber live ones. A query walks only the entries
///   after `since`.
/// - A task that changed after it was created keeps the sequence of each property's last
///   change (`PropertyStamps`), so a poll returns only the properties that moved (idle
///   tasks keep none).
/// - Removals are kept in a bounded log; a poll from before the oldest forgotten removal,
///   or from before this run of the daemon, is answered with every task and `reset`.
public final class ChangeIndex: ChangeOutput {
    /// The sequence this run's first change gets; everything before it is unknown here.
    public let firstSequence: UInt64
    /// All of it in one value: a class's stored properties are each checked for overlapping
    /// access at run time, and an update would check four of them.
    private var log: Log

    public init(firstSequence: UInt64, maxRemovals: Int) {
        self.firstSequence = firstSequence
        log = Log(lastSequence: firstSequence - 1, maxRemovals: maxRemovals)
    }

    public var lastSequence: UInt64 { log.lastSequence }

    public func publish(_ batch: ChangeBatch) { log.note(batch) }

    /// What changed after `since`. `since` 0, or older than what is kept, is a reset;
    /// `since` after the last change is refused.
    public func changes(since: UInt64) throws(ProgressError) -> Answer { try log.changes(since: since) }

    private struct Log {
        var lastSequence: UInt64
        /// Each live task's last change, the change that created it, and the properties that
        /// changed since. One dictionary for all three: every task has an entry, and the
        /// daemon's memory per task counts.
        private struct LiveTask {
            var last: UInt64
            let created: UInt64
            var stamps = PropertyStamps()
        }
        private var live: [TaskName: LiveTask] = [:]
        private var recent: [(sequence: UInt64, name: TaskName)] = []
        private var staleEntries = 0
        private var removals: [(sequence: UInt64, name: TaskName)] = []
        private var removalsStart = 0
        /// Polls from before this have missed removals that are no longer kept.
        private var forgottenThrough: UInt64
        private let maxRemovals: Int

        init(lastSequence: UInt64, maxRemovals: Int) {
            self.lastSequence = lastSequence
            forgottenThrough = lastSequence
            self.maxRemovals = maxRemovals
        }

        mutating func note(_ batch: ChangeBatch) {
            guard !batch.origin.isRestore else { return noteRestored(batch) }
            for change in batch.changes { note(change) }
        }

        /// Restored tasks are live, but no poller of this run can have seen the daemon before
        /// them: a poll from before their batch is a reset, so they need no place in `recent`
        /// (which would cost a large restore its memory twice).
        private mutating func noteRestored(_ batch: ChangeBatch) {
            for change in batch.changes where change.kind == .created {
                live[change.name] = LiveTask(last: change.sequence, created: change.sequence)
            }
            lastSequence = batch.lastSequence ?? lastSequence
            forgottenThrough = lastSequence
        }

        private mutating func note(_ change: TaskChange) {
            let sequence = change.sequence
            lastSequence = sequence
            switch change.kind {
            case .removed:
                forget(change.name)
                removals.append((sequence, change.name))
                if removals.count - removalsStart > maxRemovals {
                    forgottenThrough = removals[removalsStart].sequence
                    removalsStart += 1
                    if removalsStart > maxRemovals { removals.removeFirst(removalsStart); removalsStart = 0 }
                }
                return
            case .created:
                forget(change.name)
                live[change.name] = LiveTask(last: sequence, created: sequence)
            case .updated:
                // Changed in place, in the dictionary's own storage.
                if let entry = live.index(forKey: change.name) {
                    live.values[entry].last = sequence
                    live.values[entry].stamps.stamp(change.properties, at: sequence)
                    staleEntries += 1
                } else {
                    live[change.name] = LiveTask(last: sequence, created: sequence)
                }
            }
            recent.append((sequence, change.name))
            if staleEntries > 1_024 && staleEntries > recent.count / 2 { compact() }
        }

        private mutating func forget(_ name: TaskName) {
            if live.removeValue(forKey: name) != nil { staleEntries += 1 }
        }

        private mutating func compact() {
            recent = live.map { (sequence: $0.value.last, name: $0.key) }.sorted { $0.sequence < $1.sequence }
            staleEntries = 0
        }

        func changes(since: UInt64) throws(ProgressError) -> Answer {
            if since > lastSequence {
                throw .invalidValue("since \(since) is after the daemon's last change, \(lastSequence)")
            }
            if since < forgottenThrough || since == 0 { return .reset }
            var tasks: [(name: TaskName, properties: TaskProperties)] = []
            for entry in recent[firstIndex(after: since)...] {
                guard let task = live[entry.name], task.last == entry.sequence else { continue }
                let name = entry.name
                if task.created > since {
                    tasks.append((name, .all))
                } else {
                    tasks.append((name, task.stamps.changed(after: since)))
                }
            }
            let removed = removals[removalsStart...].drop { $0.sequence <= since }.map(\.name)
            return .changes(tasks: tasks, removed: removed)
        }

        /// The first entry of `recent` after `since`, by binary search.
        private func firstIndex(after since: UInt64) -> Int {
            var low = 0
            var high = recent.count
            while low < high {
                let middle = (low + high) / 2
                if recent[middle].sequence <= since { low = middle + 1 } else { high = middle }
            }
            return low
        }
    }

    public enum Answer: Equatable {
        /// Every live task, all of it: the poller replaces what it had.
        case reset
        /// The tasks changed after `since`, each with the properties that did, and the
        /// names removed after it (a name may be in both when it was started again).
        case changes(tasks: [(name: TaskName, properties: TaskProperties)], removed: [TaskName])

        public static func == (a: Answer, b: Answer) -> Bool {
            switch (a, b) {
            case (.reset, .reset): true
            case (.changes(let x, let r), .changes(let y, let s)):
                r == s && x.map(\.name) == y.map(\.name) && x.map(\.properties) == y.map(\.properties)
            default: false
            }
        }
    }
}
