/// The one way into the tasks. Every mutation, from a method call, a timer, a lost
/// connection or a bridge, comes through here: it is validated, authorized and applied by
/// the store, and what changed comes back as one numbered batch. The store's own mutating
/// methods are internal to Core, so nothing outside can go around this door.
public final class TaskFrontDoor {
    public let store: TaskStore
    private let access: AccessPolicy
    /// The sequence number of the last change handed out.
    public private(set) var lastSequence: UInt64
    /// Where held values go (`StagedValues`); nil, every value is applied at once.
    public weak var stagedValues: StagedValueSink?
    private var staged = StagedValues()

    /// `firstSequence` is the number of this run's first change. The daemon starts it at the
    /// wall clock in microseconds, so that numbers keep growing across restarts and a
    /// poller's serial from an earlier run is known to be older than anything kept.
    public init(store: TaskStore, access: AccessPolicy = SameUserAccess(), firstSequence: UInt64 = 1) {
        self.store = store
        self.access = access
        lastSequence = max(1, firstSequence) - 1
    }

    public func perform(_ command: TaskCommand, by origin: ChangeOrigin) -> CommandOutcome {
        if let sink = stagedValues {
            if case .setFraction(let name, let fraction) = command, hold(fraction, for: name, by: origin, command, into: sink) {
                return CommandOutcome(batch: ChangeBatch(origin: origin, changes: []), error: nil)
            }
            applyStaged()
        }
        var applied: [TaskChange] = []
        do throws(ProgressError) {
            let admitted = try access.admit(command, by: origin, store: store)
            try apply(admitted, by: origin, into: &applied)
            return CommandOutcome(batch: batch(consume applied, origin), error: nil)
        } catch {
            return CommandOutcome(batch: batch(consume applied, origin), error: error)
        }
    }

    /// Runs the timing rules that are due (stall, lease, linger).
    public func runTimers() -> ChangeBatch {
        applyStaged()
        return batch(store.housekeeping(), .timer)
    }

    /// Applies the values held (`StagedValues`), each through the store's SetFraction with
    /// the identity that sent it, and hands their batches to the sink in order. Every other
    /// way through the front door calls it first; the daemon calls it before a read and when
    /// the sink's timer comes.
    public func applyStaged() {
        guard !staged.isEmpty, let sink = stagedValues else { return }
        for entry in staged.takeAll() {
            // Nothing else came through the door since the value was held and checked, so
            // the task is as it was then and the store takes it; a refusal here is a hole
            // in that rule, not a client's mistake.
            let applied: [TaskChange]
            do throws(ProgressError) {
                applied = try store.setFraction(entry.name, entry.fraction, calls: entry.calls)
            } catch {
                preconditionFailure("a held value of \(entry.name.text) passed its checks but was refused: \(error.message)")
            }
            sink.submit(staged: batch(applied, entry.origin))
        }
    }

    /// Holds a SetFraction's value instead of applying it, when it passes every check it
    /// would at once and its task updates frequently; false sends it the usual way (where a
    /// refused one gets its error).
    private func hold(
        _ fraction: Double, for name: TaskName, by origin: ChangeOrigin, _ command: TaskCommand, into sink: StagedValueSink
    ) -> Bool {
        guard (try? TaskUpdate.validFraction(fraction)) != nil, store.takesHeldValue(name),
              (try? access.admit(command, by: origin, store: store)) != nil else { return false }
        if staged.hold(fraction, for: name, by: origin) { sink.valuesWaiting(withinMicros: store.limits.signalIntervalMicros) }
        return true
    }

    /// Puts recorded tasks back after a restart, into an empty store, as one batch: every
    /// task that passed today's checks is a created change, parents before children, so that
    /// every output learns of them as it learns of any new task (no output has start-up code
    /// of its own). Records that fail the checks are skipped and reported.
    public func restore(_ records: [TaskRecord]) -> (batch: ChangeBatch, problems: [String]) {
        let problems = store.restore(records)
        let changes = store.namesParentsFirst.map { TaskChange(name: $0, kind: .created, properties: store.properties.all, isImmediate: true) }
        return (batch(changes, .restore), problems)
    }

    /// A client left the bus: its `caller` tasks fail.
    public func clientLeft(_ client: ClientID) -> ChangeBatch {
        applyStaged()
        return batch(store.connectionClosed(client), .connectionClosed(client))
    }

    private func apply(_ command: TaskCommand, by origin: ChangeOrigin, into applied: inout [TaskChange]) throws(ProgressError) {
        switch command {
        case .start(let name, let update):
            applied = try store.start(name, with: update, caller: origin.client)
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

extension ChangeOrigin {
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
