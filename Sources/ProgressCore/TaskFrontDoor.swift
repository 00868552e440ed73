import ProgressModel

/// The one way into the tasks. Every mutation, from a method call, a timer, a lost
/// connection or a bridge, comes through here: it is validated, authorized and applied by
/// the store, and what changed comes back as numbered batches. Every read comes through
/// here too (`read`): the store is internal to Core, so nothing outside can go around this
/// door, either way.
public final class TaskFrontDoor {
    let store: TaskStore
    private let access: AccessPolicy
    /// Where a read sends the batches of the values it applies, and which outputs it asks
    /// to send what they hold back for it, before it shows the tasks.
    private let stream: ChangeStream
    /// The sequence number of the last change handed out.
    public private(set) var lastSequence: UInt64
    /// Whether a SetFraction of a task that updates frequently is held (`StagedValues`);
    /// off, every value is applied at once. The daemon turns it on with the timer that
    /// applies held values when they fall due (`CommandOutcome.heldValuesDue`).
    public var holdsValues = false
    private var staged = StagedValues()

    /// `firstSequence` is the number of this run's first change. The daemon starts it at the
    /// wall clock in microseconds, so that numbers keep growing across restarts and a
    /// poller's serial from an earlier run is known to be older than anything kept.
    public convenience init(
        clock: Clock, limits: Limits = Limits(), properties: TaskPropertyTable = .standard,
        normalizeName: @escaping @Sendable (String) -> String = { $0 }, access: AccessPolicy = SameUserAccess(),
        firstSequence: UInt64 = 1, stream: ChangeStream = ChangeStream()
    ) {
        self.init(
            store: TaskStore(clock: clock, limits: limits, properties: properties, normalizeName: normalizeName),
            access: access, firstSequence: firstSequence, stream: stream)
    }

    init(
        store: TaskStore, access: AccessPolicy = SameUserAccess(), firstSequence: UInt64 = 1,
        stream: ChangeStream = ChangeStream()
    ) {
        self.store = store
        self.access = access
        self.stream = stream
        lastSequence = max(1, firstSequence) - 1
        stream.undo = self
    }

    // MARK: What needs no read of the tasks

    /// Parses a client's name, in NFC, with the store's limits.
    public func name(_ text: String) throws(ProgressError) -> TaskName { try store.name(text) }
    public var limits: Limits { store.limits }
    public var properties: TaskPropertyTable { store.properties }
    /// The daemon's one ledger of caps (tasks, subscriptions, KDE views, launcher entries).
    public var caps: CapLedger { store.caps }
    /// When the next timing rule (stall, lease, linger) falls due: `runTimers` then.
    public var nextDeadline: Int64? { store.nextDeadline }

    /// What the journal holds, for a compaction in the middle of its write: the store as it
    /// was recorded, every batch so far included. Values still held are not in it, nor in
    /// the journal, until they are applied and recorded; so this read needs no barrier, and
    /// must take none (applying them would record them in the middle of that write).
    public func recordedTasks() -> [TaskRecord] { store.allRecords }

    /// How many tasks there are, as recorded (system jobs, which have no record, included):
    /// what the journal weighs its lines against before it compacts.
    public var recordedTaskCount: Int { store.count }

    // MARK: Reads

    /// The one way to look at the tasks: applies the values held, sends their batches down
    /// the stream in order, asks every output to send what it holds back for `scope`, then
    /// runs `body` with the tasks as they are now. A reply built in `body` shows every
    /// write acknowledged before it, and leaves after every signal about an older value.
    public func read<Result, Failure: Error>(
        _ scope: ReadScope, _ body: (TaskView) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        for batch in applyHeld() { stream.submit(batch) }
        let view = TaskView(store)
        stream.flushBeforeRead(scope, tasks: view)
        return try body(view)
    }

    // MARK: Writes

    /// A command, after the values held: their batches come first in the outcome, each
    /// with the identity that sent it, then the command's own.
    public func perform(_ command: TaskCommand, by origin: ChangeOrigin) -> CommandOutcome {
        if holdsValues, case .setFraction(let name, let fraction) = command,
           case .held(let due) = hold(fraction, for: name, by: origin, command) {
            return CommandOutcome(
                held: [], batch: ChangeBatch(origin: origin, changes: []), error: nil, heldValuesDue: due)
        }
        let held = applyHeld()
        var applied: [TaskChange] = []
        do throws(ProgressError) {
            let admitted = try access.admit(command, by: origin, tasks: TaskView(store))
            try apply(admitted, by: origin, into: &applied)
            return CommandOutcome(held: held, batch: batch(consume applied, origin), error: nil)
        } catch {
            return CommandOutcome(held: held, batch: batch(consume applied, origin), error: error)
        }
    }

    /// Runs the timing rules that are due (stall, lease, linger), after the values held:
    /// their batches first, then the rules'.
    public func runTimers() -> [ChangeBatch] {
        applyHeld() + [batch(store.housekeeping(), .timer)]
    }

    /// Applies the values held (`StagedValues`), each through the store's SetFraction with
    /// the identity that sent it, and returns their batches in order, for the stream. Every
    /// other way through the front door does it first; the daemon calls it when the time a
    /// command's outcome gave (`heldValuesDue`) comes, and before it stops.
    public func applyHeld() -> [ChangeBatch] {
        guard !staged.isEmpty else { return [] }
        return staged.takeAll().map { entry in
            // Nothing else came through the door since the value was held and checked, so
            // the task is as it was then and the store takes it; a refusal here is a hole
            // in that rule, not a client's mistake.
            let applied: [TaskChange]
            do throws(ProgressError) {
                applied = try store.setFraction(entry.name, entry.fraction, calls: entry.calls)
            } catch {
                preconditionFailure(
                    "a held value of \(entry.name.text) passed its checks but was refused: \(error.message)")
            }
            return batch(applied, entry.origin)
        }
    }

    /// Holds a SetFraction's value instead of applying it, when it passes every check it
    /// would at once and its task updates frequently; `notHeld` sends it the usual way
    /// (where a refused one gets its error).
    private func hold(
        _ fraction: Double, for name: TaskName, by origin: ChangeOrigin, _ command: TaskCommand
    ) -> Holding {
        guard (try? TaskUpdate.validFraction(fraction)) != nil, store.takesHeldValue(name),
              (try? access.admit(command, by: origin, tasks: TaskView(store))) != nil else { return .notHeld }
        return .held(due: staged.hold(fraction, for: name, by: origin) ? store.limits.signalIntervalMicros : nil)
    }

    private enum Holding {
        case notHeld
        /// Held; `due` is the delay within which `applyHeld` is due, when it is the first
        /// value held since the last were applied.
        case held(due: Int64?)
    }

    /// Puts recorded tasks back after a restart, into an empty store, as one batch: every
    /// task that passed today's checks is a created change, parents before children, so that
    /// every output learns of them as it learns of any new task (no output has start-up code
    /// of its own). Records that fail the checks are skipped and reported.
    public func restore(_ records: [TaskRecord]) -> (batch: ChangeBatch, problems: [String]) {
        let problems = store.restore(records)
        let changes = store.namesParentsFirst.map {
            TaskChange(
                name: $0, kind: .created, properties: store.properties.all, isImmediate: true, task: store.task($0)!)
        }
        return (batch(changes, .restore), problems)
    }

    /// A client left the bus: its `caller` tasks fail, after the values held.
    public func clientLeft(_ client: ClientID) -> [ChangeBatch] {
        applyHeld() + [batch(store.connectionClosed(client), .connectionClosed(client))]
    }

    private func apply(
        _ command: TaskCommand, by origin: ChangeOrigin, into applied: inout [TaskChange]
    ) throws(ProgressError) {
        switch command {
        case .start(let name, let update):
            applied = try store.start(name, with: update, caller: origin.client, bridged: origin.isBridge)
        case .update(let name, let update):
            applied = try store.update(name, with: update)
        case .updateMany(let entries):
            for (index, entry) in entries.enumerated() {
                do throws(ProgressError) {
                    applied += try store.update(entry.name, with: entry.update)
                } catch {
                    throw error.prefixed("entry \(index) (the \(index) before it were applied)")
                }
            }
        case .setFraction(let name, let fraction):
            applied = try store.setFraction(name, fraction)
        case .pulse(let name):
            applied = try store.pulse(name)
        case .finish(let name):
            applied = try store.finish(name)
        case .fail(let name, let message):
            applied = try store.fail(name, message: message)
        case .remove(let name):
            applied = try store.remove(name)
        case .requestCancel(let name):
            applied = try store.requestCancel(name)
        case .requestPause(let name):
            applied = try store.requestPause(name)
        case .requestResume(let name):
            applied = try store.requestResume(name)
        }
    }

    /// Numbers the changes in order and drops the empty ones, which outputs have no use for.
    private func batch(_ changes: consuming [TaskChange], _ origin: ChangeOrigin) -> ChangeBatch {
        var numbered = changes
        numbered.removeAll { $0.isEmpty }
        for index in numbered.indices {
            lastSequence += 1
            numbered[index].sequence = lastSequence
        }
        return ChangeBatch(origin: origin, changes: numbered)
    }
}

extension TaskFrontDoor: ChangeUndo {
    public func keepUndo() {
        guard store.tasks.undo == nil else { return }
        store.tasks.undo = TaskUndo { [unowned self] in lastSequence }
    }

    public func settled(through sequence: UInt64) { store.tasks.undo?.settled(through: sequence) }

    /// Takes back every change numbered from `sequence` on; a value held for a task that
    /// no longer takes one (it is gone, or ended) goes with them.
    public func takeBack(from sequence: UInt64) {
        guard let undo = store.tasks.undo else { return }
        store.takeBack(undo.take(from: sequence))
        staged.keep { store.takesHeldValue($0) }
    }

    public func departedAgain(_ client: ClientID) -> [ChangeBatch] { clientLeft(client) }
}

extension ChangeOrigin {
    /// A client speaking through a bridge: its task is bound to that client.
    var isBridge: Bool { if case .bridge = self { true } else { false } }

    /// The client charged for what this origin starts: the client behind it, or for the
    /// daemon's own sources a name of their own.
    var client: ClientID {
        switch self {
        case .client(let client), .bridge(_, let client), .connectionClosed(let client): client
        case .timer: ClientID("(timer)")
        case .daemon(let name): ClientID("(daemon \(name))")
        case .restore: ClientID("(restore)")
        }
    }
}

/// SetFraction values of tasks that update frequently, held by the front door between the
/// moments anyone can see them: private to the front door, which alone holds and
/// applies them (`TaskFrontDoor.applyHeld`).
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
private struct StagedValues {
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

    /// Keeps the values held for the tasks `isKept` says, in their order.
    mutating func keep(_ isKept: (TaskName) -> Bool) {
        let kept = entries.filter { isKept($0.name) }
        guard kept.count != entries.count else { return }
        entries = kept
        positions = Dictionary(uniqueKeysWithValues: kept.enumerated().map { ($1.name, $0) })
    }

    /// Every held value, in order; nothing is held afterwards.
    mutating func takeAll() -> [Entry] {
        let taken = entries
        entries.removeAll(keepingCapacity: true)
        positions.removeAll(keepingCapacity: true)
        return taken
    }
}
