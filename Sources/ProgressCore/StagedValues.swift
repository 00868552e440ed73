/// SetFraction values of tasks that update frequently, held by the front door between the
/// moments anyone can see them: a detail of the front door, which alone holds and applies
/// them (`TaskFrontDoor.applyHeld`).
///
/// A job that updates a task hundreds of times a second is told each value is taken once
/// it passed the checks (valid, authorized, a live task that shows a value); the value
/// itself waits here, the newest replacing the one before, until anything else comes
/// through the front door, a read asks, or the pace of the task's signals says it is due.
/// Signals, announcements and every output hear a frequently updated task at that pace
/// anyway; the call that only replaces a value nobody has yet heard then costs a lookup,
/// not the store's change, diff, batch and every output.
///
/// What is kept: every value that was acknowledged reaches the store, each task's last one
/// among them, and every call counts in the task's Serial; a held value is applied before
/// any other command, timer rule, departure, read or stop, so nothing observes the tasks
/// out of order; and each is applied through the store's own SetFraction with the identity
/// that sent it.
struct StagedValues {
    struct Entry {
        let name: TaskName
        var fraction: Double
        var origin: ChangeOrigin
        /// The calls this entry took: each counts in the task's Serial when it is applied.
        var calls: UInt64
    }

    /// In the order the tasks were first held, so they are applied in that order.
    private(set) var entries: [Entry] = []
    /// Where each held task's entry is, for jobs that update several tasks at once.
    private var positions: [TaskName: Int] = [:]

    var isEmpty: Bool { entries.isEmpty }

    /// Holds `fraction` for `name`, replacing a value held before. True when it is the first
    /// value held since the last `takeAll`.
    mutating func hold(_ fraction: Double, for name: TaskName, by origin: ChangeOrigin) -> Bool {
        // The usual flood updates one task: its entry is the last one, found without hashing.
        if let last = entries.indices.last, entries[last].name == name {
            replace(at: last, fraction, origin)
            return false
        }
        if let position = positions[name] {
            replace(at: position, fraction, origin)
            return false
        }
        positions[name] = entries.count
        entries.append(Entry(name: name, fraction: fraction, origin: origin, calls: 1))
        return entries.count == 1
    }

    private mutating func replace(at position: Int, _ fraction: Double, _ origin: ChangeOrigin) {
        entries[position].fraction = fraction
        entries[position].origin = origin
        entries[position].calls += 1
    }

    /// Every held value, in order; nothing is held afterwards.
    mutating func takeAll() -> [Entry] {
        let taken = entries
        entries.removeAll(keepingCapacity: true)
        positions.removeAll(keepingCapacity: true)
        return taken
    }
}
