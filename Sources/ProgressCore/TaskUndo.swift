import ProgressModel

/// The tasks as they were before the changes the journal has not yet taken, so that a
/// group of changes it refuses (a full disk, EIO) can be taken back before anyone hears of
/// them: the store is then as it was before the group, and every caller in the group is
/// told its call was refused (`ChangeStream`). Kept only while a recorder is on the stream.
///
/// Each entry is a task as it was before one change of the table (nil: there was none),
/// with the front door's last sequence number when it was made: the changes that follow it
/// are numbered after that. Entries go once their changes are delivered (`settled`).
final class TaskUndo {
    struct Entry {
        let tag: UInt64
        let name: TaskName
        let before: ProgressTask?
    }

    private var entries: [Entry] = []
    /// The front door's last sequence number.
    private let lastSequence: () -> UInt64

    init(lastSequence: @escaping () -> UInt64) {
        self.lastSequence = lastSequence
    }

    /// The table is about to change `name`, which is `before` now.
    func saw(_ name: TaskName, before: ProgressTask?) {
        entries.append(Entry(tag: lastSequence(), name: name, before: before))
    }

    /// The changes up to `sequence` are kept (on the disk, or needing no disk): nothing
    /// before them can be taken back any more.
    func settled(through sequence: UInt64) {
        guard let last = entries.last else { return }
        if last.tag < sequence { return entries.removeAll(keepingCapacity: true) }
        entries.removeAll { $0.tag < sequence }
    }

    /// The entries of the changes numbered from `sequence` on, newest first, taken out:
    /// putting each `before` back in that order leaves every task as it was before them.
    func take(from sequence: UInt64) -> [Entry] {
        let start = entries.firstIndex { $0.tag + 1 >= sequence } ?? entries.count
        let taken = entries[start...].reversed()
        entries.removeSubrange(start...)
        return Array(taken)
    }
}

extension TaskStore {
    /// Puts each task back as an entry says it was, newest entry first, with what the store
    /// keeps beside the table: the connection a task is bound to, the cap it is charged to,
    /// its parent's list of children. What the table keeps (totals, deadlines, name order)
    /// follows the table.
    func takeBack(_ entries: [TaskUndo.Entry]) {
        let undo = tasks.undo
        tasks.undo = nil
        defer { tasks.undo = undo }
        for entry in entries {
            if let now = tasks[entry.name] {
                release(now)
                if let parent = now.parent { children.remove(entry.name, from: parent) }
            }
            tasks[entry.name] = entry.before
            guard let before = entry.before else { continue }
            // A bridge's task names its client too, but the bridge acts on its departure.
            if before.isLive, before.lifetime == .caller, let bound = before.boundConnection {
                bindAgain(entry.name, to: bound)
            }
            if let charged = before.chargedTo { caps.chargeChecked(.task, to: charged) }
            if let parent = before.parent { children[parent, default: []].insert(entry.name) }
        }
    }
}
