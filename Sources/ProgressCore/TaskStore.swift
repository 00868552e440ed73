import ProgressModel

/// All tasks, and every rule about how they change. Each mutation validates everything
/// before it changes anything, and returns the changes it made: the task's own first,
/// then its ancestors', whose values follow from their children.
/// Only the front door (TaskFrontDoor) calls the mutating methods: they are internal to Core.
final class TaskStore {
    let limits: Limits
    let clock: Clock
    let tasks = TaskTable(deadline: TaskStore.timingDeadline(of:))
    /// The daemon's one ledger of caps; tasks are charged here to the process (host) or
    /// sandboxed app that started them, for as long as the task lasts.
    let caps: CapLedger
    /// `caller` tasks bound to each connection, so a closed connection costs only its own tasks.
    private var boundTasks: [ClientID: Set<TaskName>] = [:]
    var children: [TaskName: Set<TaskName>] = [:]

    /// Brings a client's name to NFC (the daemon passes GLib's: Core imports no normalizer),
    /// so the kept text and the object path are the composed ones.
    let normalizeName: @Sendable (String) -> String
    /// The properties of its tasks: how options are read and applied, what a change is,
    /// what is kept, what the bus shows.
    let properties: TaskPropertyTable

    init(
        clock: Clock, limits: Limits = Limits(), properties: TaskPropertyTable = .standard,
        normalizeName: @escaping @Sendable (String) -> String = { $0 }
    ) {
        self.clock = clock
        self.limits = limits
        self.properties = properties
        self.normalizeName = normalizeName
        caps = CapLedger(limits: limits)
    }

    // MARK: The job's calls

    /// Creates the task, re-attaches the caller to a live one, or starts an ended one afresh.
    /// A bridge's task (`bridged`) is bound to the client behind the bridge, whose departure
    /// the bridge acts on.
    func start(
        _ name: TaskName, with update: TaskUpdate, caller: ClientID, bridged: Bool = false
    ) throws(ProgressError) -> [TaskChange] {
        let parent = try update.parent.map { text throws(ProgressError) in try validParent(text, for: name) }
        if let existing = tasks[name], existing.isLive {
            if let parent, parent != existing.parent {
                throw .invalidValue(
                    "task \(quoted(name.text)) already has parent \(quoted(existing.parent?.text ?? "")); "
                        + "a live task keeps its parent")
            }
            var task = existing
            try apply(update, to: &task)
            bind(&task, lifetime: update.lifetime ?? task.lifetime, to: caller, bridged: bridged)
            let rebinds = task.boundConnection?.uniqueName != existing.boundConnection?.uniqueName
            return commitAndPropagate(task, replacing: existing, activity: true, rebinds: rebinds)
        }
        let existing = tasks[name]
        try checkCapacity(
            for: caller.chargeKey, addsTask: existing == nil, chargesCaller: existing?.chargedTo != caller.chargeKey)
        // A job that runs again gets a fresh task on the same object, with a Serial
        // that keeps growing so pollers notice.
        var task = ProgressTask(
            name: name, caller: caller, wallMicros: clock.wallMicros, monotonicMicros: clock.monotonicMicros,
            limits: limits, serial: existing.map { $0.serial + 1 } ?? 0)
        task.parent = parent ?? existing?.parent
        try apply(update, to: &task)
        if let existing { release(existing) }
        bind(&task, lifetime: update.lifetime ?? .lease, to: caller, bridged: bridged)
        // Where the task starts is its first sample.
        updateEstimate(&task, before: task)
        task.hasChildren = !(children[name]?.isEmpty ?? true)
        tasks[name] = task
        caps.chargeChecked(.task, to: caller.chargeKey)
        let formerParent = existing?.parent.flatMap { $0 == task.parent ? nil : leaveParent($0, child: name) } ?? []
        if let parent = task.parent { children[parent, default: []].insert(name) }
        let own: TaskChange = if let existing {
            TaskChange(
                name: name, kind: .updated, properties: properties.differences(task, existing), isImmediate: true,
                isRestart: true, task: task)
        } else {
            TaskChange(name: name, kind: .created, properties: properties.all, isImmediate: true, task: task)
        }
        return [own] + formerParent + recomputeAncestors(of: task)
    }

    func update(_ name: TaskName, with update: TaskUpdate) throws(ProgressError) -> [TaskChange] {
        let before = try liveTask(name, action: "updated")
        var task = before
        if task.hasChildren && update.setsValue { throw Self.valueOfParent(name) }
        try apply(update, to: &task)
        return commitAndPropagate(task, replacing: before, activity: true)
    }

    /// The call a job makes most, hundreds of times a second: the task changes in its slot,
    /// with one copy of it kept for what changed, instead of copies out and back in.
    /// `calls` is how many SetFractions this one stands for (the values held for a task
    /// that updates frequently, the last applied): each counts in the task's Serial.
    func setFraction(_ name: TaskName, _ fraction: Double, calls: UInt64 = 1) throws(ProgressError) -> [TaskChange] {
        let fraction = try TaskUpdate.validFraction(fraction)
        let changed = try tasks.modify(name) {
            (task, before) throws(ProgressError) -> (change: TaskChange, isTopLevel: Bool) in
            try Self.refuseValue(of: task, action: "updated")
            Self.apply(fraction: fraction, to: &task)
            task.indeterminate = false
            return (count(&task, replacing: before, activity: true, calls: calls), task.parent == nil)
        }
        guard let changed else { throw Self.noSuchTask(name) }
        let ancestors = changed.isTopLevel ? [] : recomputeAncestors(of: tasks[name]!)
        if changed.change.isEmpty { return ancestors }
        return ancestors.isEmpty ? [changed.change] : [changed.change] + ancestors
    }

    /// Shows activity: makes the task indeterminate if it was not, and always counts as a change,
    /// so that pollers watching Serial see each pulse.
    func pulse(_ name: TaskName) throws(ProgressError) -> [TaskChange] {
        var task = try liveTask(name, action: "pulsed")
        if task.hasChildren {
            throw .invalidValue("task \(quoted(name.text)) has children: it is as indeterminate as they are")
        }
        let before = task
        task.indeterminate = true
        return commitAndPropagate(task, replacing: before, activity: true, forceChange: true)
    }

    /// Finishing a finished task again is accepted and changes nothing, so a retried call is harmless.
    func finish(_ name: TaskName) throws(ProgressError) -> [TaskChange] {
        let existing = try anyTask(name)
        if existing.ownState == .finished { return [] }
        var task = try liveTask(name, action: "finished")
        try refuseWhileChildrenRun(name, action: "finished")
        enterOutcome(.finished, &task)
        if !task.indeterminate {
            task.storedFraction = 1
            if task.total > 0 { task.completed = task.total }
        }
        return commitAndPropagate(task, replacing: existing, activity: true)
    }

    /// Failing a failed task again with the same message is accepted and changes nothing.
    func fail(_ name: TaskName, message: String) throws(ProgressError) -> [TaskChange] {
        let message = try TaskUpdate.validText(message, key: "message", maxBytes: limits.maxMessageBytes)
        let existing = try anyTask(name)
        if existing.ownState == .failed && existing.message == message { return [] }
        var task = try liveTask(name, action: "failed")
        try refuseWhileChildrenRun(name, action: "failed")
        enterOutcome(.failed, &task)
        task.message = message
        return commitAndPropagate(task, replacing: existing, activity: true)
    }

    /// Drops the task and everything below it, deepest first.
    func remove(_ name: TaskName) throws(ProgressError) -> [TaskChange] {
        let task = try anyTask(name)
        var changes = removeSubtree(name)
        if let parent = task.parent, let parentTask = tasks[parent] {
            changes += recompute(parentTask)
        }
        return changes
    }

    /// A connection left the bus: the live `caller` tasks bound to it fail at once.
    func connectionClosed(_ caller: ClientID) -> [TaskChange] {
        guard let names = boundTasks.removeValue(forKey: caller) else { return [] }
        var changes: [TaskChange] = []
        for name in names.sorted(by: { $0.text < $1.text }) {
            guard var task = tasks[name], task.isLive else { continue }
            let before = task
            task.boundConnection = nil
            enterOutcome(.failed, &task)
            task.message = "owner went away: connection \(caller) closed while the task was \(before.state.rawValue)"
            changes += commitAndPropagate(task, replacing: before, activity: false)
        }
        return changes
    }

    // MARK: Requests from user interfaces

    func requestCancel(_ name: TaskName) throws(ProgressError) -> [TaskChange] {
        var task = try liveTask(name, action: "cancelled")
        guard task.cancellable else {
            throw .notAllowed(
                "task \(quoted(name.text)) is not cancellable (its job did not start it with cancellable: true)")
        }
        if task.cancelRequested { return [] }
        let before = task
        task.cancelRequested = true
        return commitAndPropagate(task, replacing: before, activity: false, requests: [.cancelRequested])
    }

    func requestPause(_ name: TaskName) throws(ProgressError) -> [TaskChange] {
        let task = try pausableTask(name)
        if task.ownState == .paused { return [] }
        return [TaskChange(
            name: name, kind: .updated, properties: [], isImmediate: true, requests: [.pauseRequested], task: task)]
    }

    func requestResume(_ name: TaskName) throws(ProgressError) -> [TaskChange] {
        let task = try pausableTask(name)
        if task.ownState == .running { return [] }
        return [TaskChange(
            name: name, kind: .updated, properties: [], isImmediate: true, requests: [.resumeRequested], task: task)]
    }

    // MARK: Rules

    private static func valueOfParent(_ name: TaskName) -> ProgressError {
        .invalidValue("task \(quoted(name.text)) has children: its fraction, completed and total come from them")
    }

    private func apply(_ update: TaskUpdate, to task: inout ProgressTask) throws(ProgressError) {
        try applyValue(update, to: &task)
        properties.applySettings(update, to: &task)
        if update.withdrawsCancelRequest { task.cancelRequested = false }
    }

    /// What the store's rules decide: the state a job may request, and the value from
    /// fraction, completed and total.
    private func applyValue(_ update: TaskUpdate, to task: inout ProgressTask) throws(ProgressError) {
        // Only an error message needs the quoted name.
        var name: String { quoted(task.name.text) }
        if let requested = update.state, requested != task.ownState {
            switch (task.ownState, requested) {
            case (.running, .paused), (.paused, .running):
                task.ownState = requested
            case (.running, .cancelled), (.paused, .cancelled):
                enterOutcome(.cancelled, &task)
            default:
                throw .invalidValue("task \(name) can not go from \(task.ownState.rawValue) to \(requested.rawValue)")
            }
        }
        let total = update.total ?? task.total
        let completed = update.completed ?? task.completed
        if let fraction = update.fraction, update.completed != nil, total > 0 {
            throw .invalidValue(
                "task \(name): give fraction (\(fraction)) or completed (\(completed) of \(total)), not both, "
                    + "while a total is set")
        }
        if total > 0 && completed > total {
            throw .invalidValue("task \(name): completed \(completed) is more than total \(total)")
        }
        task.total = total
        task.completed = completed
        if let fraction = update.fraction {
            Self.apply(fraction: fraction, to: &task)
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
    }

    /// A fraction, and with a total the completed units it stands for.
    private static func apply(fraction: Double, to task: inout ProgressTask) {
        task.storedFraction = fraction
        if task.total > 0 { task.completed = UInt64((fraction * Double(task.total)).rounded(.down)) }
    }

    func enterOutcome(_ state: TaskState, _ task: inout ProgressTask) {
        task.ownState = state
        task.outcomeTime = clock.monotonicMicros
    }

    /// Stores `task`, counting the change: Serial and Updated move, and a task changed
    /// faster than signals may go out is marked as updating frequently. `activity` is a
    /// call from the job, which renews the lease and clears a stall.
    func commit(
        _ task: ProgressTask, replacing before: ProgressTask, activity: Bool, forceChange: Bool = false,
        requests: [TaskRequest] = [], rebinds: Bool = false
    ) -> TaskChange {
        var task = task
        let change = count(
            &task, replacing: before, activity: activity, forceChange: forceChange, requests: requests,
            rebinds: rebinds)
        // Stored even when nothing visible changed: the activity time or binding may have.
        tasks[task.name] = task
        return change
    }

    /// What changes at once, never coalesced (`TaskChange.isImmediate`); kept once, not
    /// built from its literal by every update.
    private static let signalledAtOnce: TaskProperties = [.state, .indeterminate, .stalled, .cancelRequested]

    /// What `commit` does before it stores the task: the activity, the estimate, and the
    /// change with what counting it moved.
    private func count(
        _ task: inout ProgressTask, replacing before: ProgressTask, activity: Bool, forceChange: Bool = false,
        requests: [TaskRequest] = [], calls: UInt64 = 1, rebinds: Bool = false
    ) -> TaskChange {
        if activity {
            task.lastActivity = clock.monotonicMicros
            task.stalled = false
        }
        updateEstimate(&task, before: before)
        var changed = properties.differences(task, before)
        let counts = forceChange || !changed.isEmpty
        if counts {
            task.serial += calls
            task.updated = max(clock.wallMicros, before.updated)
            countTowardsRate(&task)
            // What counting the change itself moved.
            changed.insert(.serial)
            if task.updated != before.updated { changed.insert(.updated) }
            if task.updatesFrequently != before.updatesFrequently { changed.insert(.updatesFrequently) }
        }
        let immediate = !changed.isDisjoint(with: Self.signalledAtOnce) || !requests.isEmpty
        return TaskChange(
            name: task.name, kind: .updated, properties: changed, isImmediate: immediate, requests: requests,
            rebinds: rebinds, task: task)
    }

    func commitAndPropagate(
        _ task: ProgressTask, replacing before: ProgressTask, activity: Bool, forceChange: Bool = false,
        requests: [TaskRequest] = [], rebinds: Bool = false
    ) -> [TaskChange] {
        let own = commit(
            task, replacing: before, activity: activity, forceChange: forceChange, requests: requests, rebinds: rebinds)
        // A top-level task (most are) has no ancestors to look up, and one change is one array.
        let ancestors = task.parent == nil ? [] : recomputeAncestors(of: tasks[task.name]!)
        if own.isEmpty { return ancestors }
        return ancestors.isEmpty ? [own] : [own] + ancestors
    }

    private func bind(_ task: inout ProgressTask, lifetime: Lifetime, to caller: ClientID, bridged: Bool) {
        if let old = task.boundConnection { boundTasks.remove(task.name, from: old) }
        task.lifetime = lifetime
        task.boundConnection = lifetime == .caller || bridged ? caller : nil
        if lifetime == .caller { boundTasks[caller, default: []].insert(task.name) }
    }

    /// A task taken back (`takeBack`), or restored with the connection its record names
    /// (`RestoredBindings` asks the bus whether it is still there), is bound to it again.
    func bindAgain(_ name: TaskName, to caller: ClientID) { boundTasks[caller, default: []].insert(name) }

    func release(_ task: ProgressTask) {
        if let bound = task.boundConnection { boundTasks.remove(task.name, from: bound) }
        if let charged = task.chargedTo { caps.release(.task, from: charged) }
    }

    private func checkCapacity(for caller: ChargeKey, addsTask: Bool, chargesCaller: Bool) throws(ProgressError) {
        if addsTask && tasks.count >= limits.maxTasks {
            throw .limitExceeded("the daemon holds \(tasks.count) tasks; the limit is \(limits.maxTasks)")
        }
        if chargesCaller { try caps.check(.task, for: caller) }
    }

    func anyTask(_ name: TaskName) throws(ProgressError) -> ProgressTask {
        guard let task = tasks[name] else { throw Self.noSuchTask(name) }
        return task
    }

    private static func noSuchTask(_ name: TaskName) -> ProgressError {
        .noSuchTask("no task is named \(quoted(name.text))")
    }

    private func liveTask(_ name: TaskName, action: String) throws(ProgressError) -> ProgressTask {
        let task = try anyTask(name)
        try Self.refuseEnded(task, action: action)
        return task
    }

    private static func refuseEnded(_ task: ProgressTask, action: String) throws(ProgressError) {
        if !task.isLive {
            throw .invalidValue(
                "task \(quoted(task.name.text)) is \(task.state.rawValue) and can not be \(action); "
                    + "Start it again to reuse the name")
        }
    }

    /// A value is refused for an ended task and for a parent, whose value its children make.
    private static func refuseValue(of task: ProgressTask, action: String) throws(ProgressError) {
        try refuseEnded(task, action: action)
        if task.hasChildren { throw valueOfParent(task.name) }
    }

    private func pausableTask(_ name: TaskName) throws(ProgressError) -> ProgressTask {
        let task = try liveTask(name, action: "paused or resumed")
        guard task.pausable else {
            throw .notAllowed(
                "task \(quoted(name.text)) is not pausable (its job did not start it with pausable: true)")
        }
        return task
    }
}
