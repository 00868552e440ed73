import ProgressModel

/// When value events may go out. Two rules: a task's events no faster than its coalesced
/// signal rate (`--max-signals-per-second`, as its PropertiesChanged), and no two of
/// progressd's within `globalGapMicros` whatever the task, because Orca (HEAD's spam
/// filter in event_manager.py) drops an event of the same type from the same application
/// that comes within 100 ms of the previous one. Several bars changing at once are spread
/// out, one per gap, oldest first. A task stays marked until its event is sent, so the last
/// value is never lost, only late.
struct ValueEventPacer {
    /// A little over Orca's 100 ms, for timer slack on a loaded machine.
    static let globalGapMicros: Int64 = 105_000

    let taskIntervalMicros: Int64
    let globalGapMicros: Int64
    /// Tasks waiting for an event, in the order they were first marked.
    private var waiting: [TaskName] = []
    private var isWaiting: Set<TaskName> = []
    private var lastByTask: [TaskName: Int64] = [:]
    private var lastAny: Int64?

    init(taskIntervalMicros: Int64, globalGapMicros: Int64 = ValueEventPacer.globalGapMicros) {
        self.taskIntervalMicros = max(1, taskIntervalMicros)
        self.globalGapMicros = globalGapMicros
    }

    var isEmpty: Bool { waiting.isEmpty }

    /// Marks a task's value as changed; returns when the next event may go.
    mutating func mark(_ name: TaskName, now: Int64) -> Int64? {
        if isWaiting.insert(name).inserted { waiting.append(name) }
        return nextDeadline(now: now)
    }

    mutating func forget(_ name: TaskName) {
        unmark(name)
        lastByTask[name] = nil
    }

    mutating func removeAll() {
        waiting.removeAll()
        isWaiting.removeAll()
        lastByTask.removeAll()
        lastAny = nil
    }

    private func due(_ name: TaskName) -> Int64 {
        lastByTask[name].map { $0 + taskIntervalMicros } ?? .min
    }

    /// The earliest time an event may go for some waiting task, or nil when none waits.
    func nextDeadline(now: Int64) -> Int64? {
        guard let earliestTask = waiting.lazy.map(due).min() else { return nil }
        let globalDue = lastAny.map { $0 + globalGapMicros } ?? .min
        return max(earliestTask, globalDue, now)
    }

    /// Whether the task waits for an event already (a later change then needs no mark).
    func isMarked(_ name: TaskName) -> Bool { isWaiting.contains(name) }

    /// The task whose event may go now, if one may; it stays marked until it is `sent` or
    /// `unmarked`.
    func next(now: Int64) -> TaskName? {
        if let lastAny, now < lastAny + globalGapMicros { return nil }
        return waiting.first { due($0) <= now }
    }

    /// The task's event went: the spacing counts from now.
    mutating func sent(_ name: TaskName, now: Int64) {
        unmark(name)
        lastByTask[name] = now
        lastAny = now
    }

    /// The task had nothing to say after all (its value came back to what the tools were
    /// told): unmarked, with no spacing used up.
    mutating func unmark(_ name: TaskName) {
        if isWaiting.remove(name) != nil { waiting.removeAll { $0 == name } }
    }

    /// The task whose event goes now, if one may; it is then unmarked.
    mutating func take(now: Int64) -> TaskName? {
        guard let name = next(now: now) else { return nil }
        sent(name, now: now)
        return name
    }
}
