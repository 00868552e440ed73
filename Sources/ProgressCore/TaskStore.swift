/// All tasks, and every rule about how they change. Each mutation validates everything
/// before it changes anything, and returns a `TaskChange` saying what it did.
/// Callers are D-Bus unique names (":1.42"); the store only compares them.
public final class TaskStore {
    public let limits: Limits
    private let clock: Clock
    private var tasks: [TaskName: ProgressTask] = [:]
    /// Tasks charged to each connection, for the per-caller cap.
    private var chargedTasks: [String: Int] = [:]
    /// Tasks whose owner is each connection, so a vanished owner costs only its own tasks.
    private var ownedTasks: [String: Set<TaskName>] = [:]

    public init(clock: Clock, limits: Limits = Limits()) {
        self.clock = clock
        self.limits = limits
    }

    public var count: Int { tasks.count }

    public func task(_ name: TaskName) -> ProgressTask? { tasks[name] }

    /// Names in a stable order (byte order of their UTF-8), for List and Snapshot.
    public var sortedNames: [TaskName] {
        tasks.keys.sorted { $0.text.utf8.lexicographicallyPrecedes($1.text.utf8) }
    }

    /// Parses a client's name, with this store's limits.
    public func name(_ text: String) throws(ProgressError) -> TaskName {
        try TaskName(text, limits: limits)
    }

    // MARK: Mutations

    /// Creates the task, re-attaches the caller to a live one, or starts an ended one afresh.
    public func start(_ name: TaskName, with update: TaskUpdate, caller: String) throws(ProgressError) -> TaskChange {
        guard let existing = tasks[name] else {
            try checkCapacity(for: caller, adding: 1)
            var task = ProgressTask(name: name, caller: caller, wallMicros: clock.wallMicros)
            try apply(update, to: &task)
            tasks[name] = task
            chargedTasks[caller, default: 0] += 1
            return TaskChange(name: name, kind: .created, properties: .all, isImmediate: true)
        }
        if existing.state.isOutcome {
            // A job that runs again gets a fresh task on the same object, with a Serial
            // that keeps growing so pollers notice.
            if existing.creator != caller { try checkCapacity(for: caller, adding: 1) }
            var task = ProgressTask(name: name, caller: caller, wallMicros: clock.wallMicros, serial: existing.serial + 1)
            try apply(update, to: &task)
            release(existing)
            tasks[name] = task
            chargedTasks[caller, default: 0] += 1
            return TaskChange(name: name, kind: .updated, properties: task.differences(from: existing), isImmediate: true)
        }
        var task = existing
        try apply(update, to: &task)
        if task.starter != caller {
            unbindOwner(of: &task)
            task.starter = caller
        }
        return commit(task, replacing: existing)
    }

    public func update(_ name: TaskName, with update: TaskUpdate, caller: String) throws(ProgressError) -> TaskChange {
        var task = try liveTask(name, action: "updated")
        try apply(update, to: &task)
        bindOwnerIfStarter(caller, of: &task)
        return commit(task, replacing: tasks[name]!)
    }

    public func setFraction(_ name: TaskName, _ fraction: Double, caller: String) throws(ProgressError) -> TaskChange {
        var update = TaskUpdate()
        update.fraction = try TaskUpdate.validFraction(fraction)
        return try self.update(name, with: update, caller: caller)
    }

    /// Shows activity: makes the task indeterminate if it was not, and always counts as a change,
    /// so that pollers watching Serial see each pulse.
    public func pulse(_ name: TaskName, caller: String) throws(ProgressError) -> TaskChange {
        var task = try liveTask(name, action: "pulsed")
        let before = task
        task.indeterminate = true
        bindOwnerIfStarter(caller, of: &task)
        return commit(task, replacing: before, forceChange: true)
    }

    /// Finishing a finished task again is accepted and changes nothing, so a retried call is harmless.
    public func finish(_ name: TaskName, caller: String) throws(ProgressError) -> TaskChange {
        let existing = try anyTask(name)
        if existing.state == .finished { return TaskChange(name: name, kind: .updated, properties: [], isImmediate: false) }
        var task = try liveTask(name, action: "finished")
        task.state = .finished
        if !task.indeterminate {
            task.storedFraction = 1
            if task.total > 0 { task.completed = task.total }
        }
        bindOwnerIfStarter(caller, of: &task)
        return commit(task, replacing: existing)
    }

    /// Failing a failed task again with the same message is accepted and changes nothing.
    public func fail(_ name: TaskName, message: String, caller: String) throws(ProgressError) -> TaskChange {
        let message = try TaskUpdate.validText(message, key: "message", maxBytes: limits.maxMessageBytes)
        let existing = try anyTask(name)
        if existing.state == .failed && existing.message == message {
            return TaskChange(name: name, kind: .updated, properties: [], isImmediate: false)
        }
        var task = try liveTask(name, action: "failed")
        task.state = .failed
        task.message = message
        bindOwnerIfStarter(caller, of: &task)
        return commit(task, replacing: existing)
    }

    public func remove(_ name: TaskName) throws(ProgressError) -> TaskChange {
        let task = try anyTask(name)
        release(task)
        tasks[name] = nil
        return TaskChange(name: name, kind: .removed, properties: [], isImmediate: true)
    }

    /// A connection left the bus: the live tasks it owned fail, so that a crashed job
    /// never looks like a finished one.
    public func connectionClosed(_ caller: String) -> [TaskChange] {
        chargedTasks[caller] = nil
        guard let names = ownedTasks.removeValue(forKey: caller) else { return [] }
        var changes: [TaskChange] = []
        for name in names.sorted(by: { $0.text < $1.text }) {
            guard var task = tasks[name], !task.state.isOutcome else { continue }
            let before = task
            task.owner = nil
            task.state = .failed
            task.message = "owner went away: connection \(caller) closed while the task was \(before.state.rawValue)"
            changes.append(commit(task, replacing: before))
        }
        return changes
    }

    // MARK: Rules

    private func apply(_ update: TaskUpdate, to task: inout ProgressTask) throws(ProgressError) {
        let name = quoted(task.name.text)
        if let requested = update.state, requested != task.state {
            switch (task.state, requested) {
            case (.running, .paused), (.paused, .running), (.running, .cancelled), (.paused, .cancelled):
                task.state = requested
            default:
                throw .invalidValue("task \(name) can not go from \(task.state.rawValue) to \(requested.rawValue)")
            }
        }
        let total = update.total ?? task.total
        let completed = update.completed ?? task.completed
        if let fraction = update.fraction, update.completed != nil, total > 0 {
            throw .invalidValue(
                "task \(name): give fraction (\(fraction)) or completed (\(completed) of \(total)), not both, while a total is set")
        }
        if total > 0 && completed > total {
            throw .invalidValue("task \(name): completed \(completed) is more than total \(total)")
        }
        task.total = total
        task.completed = completed
        if let fraction = update.fraction {
            task.storedFraction = fraction
            if total > 0 { task.completed = UInt64((fraction * Double(total)).rounded(.down)) }
        } else if (update.completed != nil || update.total != nil) && total > 0 {
            task.storedFraction = Double(completed) / Double(total)
        }
        // A value makes a pulsing task determinate again, as it does a GTK progress bar,
        // unless the same call says otherwise. A count without a total is no value.
        let givesValue = update.fraction != nil || ((update.completed != nil || update.total != nil) && total > 0)
        if let indeterminate = update.indeterminate {
            task.indeterminate = indeterminate
        } else if givesValue {
            task.indeterminate = false
        }
        if let title = update.title { task.title = title }
        if let unit = update.unit { task.unit = unit }
        if let message = update.message { task.message = message }
        if let appId = update.appId { task.appId = appId }
        if let frequent = update.updatesFrequently { task.ownerSaysFrequent = frequent }
    }

    /// Stores `task`, counting the change: Serial and Updated move, and a task changed
    /// faster than signals may go out is marked as updating frequently.
    private func commit(_ task: ProgressTask, replacing before: ProgressTask, forceChange: Bool = false) -> TaskChange {
        var task = task
        let counts = forceChange || !task.differences(from: before).isEmpty
        if counts {
            task.serial += 1
            task.updated = max(clock.wallMicros, before.updated)
            countTowardsRate(&task)
        }
        // Stored even when nothing visible changed: the starter or owner may have.
        tasks[task.name] = task
        guard counts else { return TaskChange(name: task.name, kind: .updated, properties: [], isImmediate: false) }
        let changed = task.differences(from: before)
        let immediate = changed.contains(.state) || changed.contains(.indeterminate)
        return TaskChange(name: task.name, kind: .updated, properties: changed, isImmediate: immediate)
    }

    private func countTowardsRate(_ task: inout ProgressTask) {
        let now = clock.monotonicMicros
        if task.rateWindowStart.map({ now - $0 >= 1_000_000 }) ?? true {
            task.rateWindowStart = now
            task.rateWindowCount = 0
        }
        task.rateWindowCount += 1
        // Once detected it stays: a client that chose to poll is not flipped back and forth.
        if task.rateWindowCount > limits.maxSignalsPerSecond { task.detectedFrequent = true }
    }

    private func bindOwnerIfStarter(_ caller: String, of task: inout ProgressTask) {
        guard task.owner == nil, task.starter == caller else { return }
        task.owner = caller
        ownedTasks[caller, default: []].insert(task.name)
    }

    private func unbindOwner(of task: inout ProgressTask) {
        guard let owner = task.owner else { return }
        ownedTasks[owner]?.remove(task.name)
        if ownedTasks[owner]?.isEmpty == true { ownedTasks[owner] = nil }
        task.owner = nil
    }

    private func release(_ task: ProgressTask) {
        var task = task
        unbindOwner(of: &task)
        if let charged = chargedTasks[task.creator] {
            chargedTasks[task.creator] = charged > 1 ? charged - 1 : nil
        }
    }

    private func checkCapacity(for caller: String, adding: Int) throws(ProgressError) {
        if tasks.count + adding > limits.maxTasks {
            throw .limitExceeded("the daemon holds \(tasks.count) tasks; the limit is \(limits.maxTasks)")
        }
        let charged = chargedTasks[caller, default: 0]
        if charged + adding > limits.maxTasksPerCaller {
            throw .limitExceeded(
                "connection \(caller) has started \(charged) tasks; the limit per connection is \(limits.maxTasksPerCaller)")
        }
    }

    private func anyTask(_ name: TaskName) throws(ProgressError) -> ProgressTask {
        guard let task = tasks[name] else { throw .noSuchTask("no task is named \(quoted(name.text))") }
        return task
    }

    private func liveTask(_ name: TaskName, action: String) throws(ProgressError) -> ProgressTask {
        let task = try anyTask(name)
        if task.state.isOutcome {
            throw .invalidValue(
                "task \(quoted(name.text)) is \(task.state.rawValue) and can not be \(action); Start it again to reuse the name")
        }
        return task
    }
}
