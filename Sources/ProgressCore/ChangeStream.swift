import ProgressModel

/// What a read is about to show, so that outputs holding signals back can send them first:
/// a reply never overtakes a signal about an older value.
public enum ReadScope: Sendable, Equatable {
    case task(TaskName)
    /// Several tasks; none is a read of what the front door holds, with no signal to send
    /// first (the change index's answer, before the tasks it names are read).
    case tasks([TaskName])
    /// The manager's own properties (TaskCount, Overall).
    case manager
    case everything
}

/// A listener on the change stream: D-Bus signals, announcements, subscriptions, the
/// accessibility export, bridges. Each is one type in one file, added to the daemon's one
/// ordered list of outputs before any input starts. Everything an output learns comes down
/// the stream in order: batches (restored tasks at start among them), departures, and the
/// stop; it needs no start-up path of its own and holds no other output.
public protocol ChangeOutput: AnyObject {
    /// The task properties this output acts on, read when it is added and again when it
    /// calls the stream's `interestChanged`. A batch whose changes are all updates of none
    /// of these (no task came or went, no request, no restart) is not published to it: most
    /// updates change a value only, and an output that does nothing for one costs nothing.
    /// An output with no listener of its own (no subscriber, no dock, no tray watcher)
    /// narrows it until one comes. All of them (the default) hears every batch.
    var interest: TaskProperties { get }
    /// Every non-empty batch, in sequence order, after the caller has its reply.
    func publish(_ batch: ChangeBatch)
    /// A read of `scope` is about to be answered; send what is held for it, with the
    /// values `tasks` shows (those the read shows).
    func flushBeforeRead(_ scope: ReadScope, tasks: TaskView)
    /// A client left the bus: let go of what it held. Comes after the batch that failed its
    /// `caller` tasks, and after every batch of its earlier calls.
    func clientLeft(_ client: ClientID)
    /// The daemon is stopping: the last event. Undo what the output set outside the daemon.
    func stop()
}

extension ChangeOutput {
    public var interest: TaskProperties { .all }
    public func flushBeforeRead(_ scope: ReadScope, tasks: TaskView) {}
    public func clientLeft(_ client: ClientID) {}
    public func stop() {}
}

/// The listener that must see a batch before the caller hears success: persistence, so
/// that a reply means the transition is on disk.
public protocol ChangeRecorder: AnyObject {
    /// Takes the batch; what must be durable before the reply waits for `commit`.
    func record(_ batch: ChangeBatch)
    /// Whether recorded changes wait for `commit` before anyone may hear of them.
    var hasPending: Bool { get }
    /// Makes every recorded change durable at once: one write and one sync for all. Throws
    /// StorageFull or StorageFailed when they are not on the disk: then the group is refused.
    func commit() throws(ProgressError)
    /// Whether each batch that needs the disk is committed on its own, at once (the disk
    /// refused a write before: a refusal then takes back that batch alone).
    var commitsAtOnce: Bool { get }
}

/// What takes back changes the recorder refused (the front door): it keeps the tasks as
/// they were until their changes are settled.
public protocol ChangeUndo: AnyObject {
    /// From now on, keep what it takes to take changes back (a recorder is on the stream).
    func keepUndo()
    /// The changes up to `sequence` are kept: they will not be taken back.
    func settled(through sequence: UInt64)
    /// Puts every task back as it was before the change numbered `sequence`.
    func takeBack(from sequence: UInt64)
    /// A client's departure was taken back with its group: its `caller` tasks fail again.
    func departedAgain(_ client: ClientID) -> [ChangeBatch]
}

/// The ordered stream from the front door to the outputs. An input submits each batch with
/// its reply, if it has one: the recorders take it, and when none has anything waiting to
/// be made durable, the reply goes and the outputs hear of it at once. Otherwise the batch
/// waits, with every event after it, until the daemon commits the group (once per pass of
/// the main loop): one sync, then the replies and the outputs, in order. So every reply
/// still means "on disk", and a burst of Starts costs one sync, not one each.
///
/// A group the recorder refuses is taken back (`ChangeUndo`): the tasks are as they were
/// before it, the reply of each of its batches that changed something is the recorder's
/// error, and no output hears of those batches; a departure in it is delivered after its
/// `caller` tasks fail again.
///
/// An output that acts while it hears an event (a bridge failing a departed client's jobs)
/// submits again; that event is delivered after the one being delivered, to every output,
/// so no output ever hears events out of order.
public final class ChangeStream {
    private enum Event {
        case batch(ChangeBatch, reply: ((ProgressError?) -> Void)?)
        /// A batch of a refused group: taken back, its reply told why, heard by no output.
        case refused(ChangeBatch, reply: ((ProgressError?) -> Void)?, ProgressError)
        case departed(ClientID)
        case stopping

        var lastSequence: UInt64? {
            switch self {
            case .batch(let batch, _), .refused(let batch, _, _): batch.lastSequence
            case .departed, .stopping: nil
            }
        }

        var firstSequence: UInt64? {
            switch self {
            case .batch(let batch, _), .refused(let batch, _, _): batch.changes.first?.sequence
            case .departed, .stopping: nil
            }
        }
    }

    /// An output and its `interest`; nil for one that hears every batch.
    private final class Listener {
        let output: ChangeOutput
        var interest: TaskProperties?

        init(_ output: ChangeOutput) {
            self.output = output
            interest = Self.interest(of: output)
        }

        static func interest(of output: ChangeOutput) -> TaskProperties? {
            let interest = output.interest
            return interest == .all ? nil : interest
        }
    }

    private var recorders: [ChangeRecorder] = []
    private var listeners: [Listener] = []
    private var lastPublished: UInt64?
    /// Events held until the recorders commit.
    private var waiting: [Event] = []
    /// Events being delivered now, and those submitted while they are.
    private var delivering: [Event] = []
    private var isDelivering = false
    private var isCommitting = false
    /// Asks the daemon to call `commitWaiting` soon (after the calls already queued).
    public var scheduleCommit: () -> Void = {}
    /// Takes back what a recorder refuses (the front door sets itself).
    public weak var undo: ChangeUndo? {
        didSet { if !recorders.isEmpty { undo?.keepUndo() } }
    }

    public init() {}

    public func add(recorder: ChangeRecorder) {
        recorders.append(recorder)
        undo?.keepUndo()
    }
    public func add(_ output: ChangeOutput) { listeners.append(Listener(output)) }

    /// `output`'s interest may have changed (a listener of its own came or went): the
    /// batches from the next one on are chosen by what it says now. An output that widens
    /// it reads what it missed from the store, which is current.
    public func interestChanged(_ output: ChangeOutput) {
        guard let listener = listeners.first(where: { $0.output === output }) else { return }
        listener.interest = Listener.interest(of: output)
    }

    /// A batch and what tells its caller (nil when nobody waits on a reply): `reply` gets
    /// nil, or the recorder's error when the batch's group was refused and taken back.
    public func submit(_ batch: ChangeBatch, reply: ((ProgressError?) -> Void)? = nil) {
        if !batch.isEmpty {
            for recorder in recorders { recorder.record(batch) }
        }
        enqueue(.batch(batch, reply: reply))
        if !waiting.isEmpty && !isCommitting && recorders.contains(where: \.commitsAtOnce) { commitWaiting() }
    }

    /// A read's reply: at once, or after the replies that wait for their sync, so that a
    /// connection's replies leave in the order of its calls (a read's reply never overtakes
    /// the reply of a Start sent before it).
    public func replyInOrder(_ reply: @escaping () -> Void) {
        guard !waiting.isEmpty else { return reply() }
        waiting.append(.batch(ChangeBatch(origin: .daemon("read"), changes: []), reply: { _ in reply() }))
    }

    /// A client left the bus: after everything submitted before, every output lets go of it.
    public func depart(_ client: ClientID) { enqueue(.departed(client)) }

    /// The last event: what waits is made durable and delivered, then every output stops.
    public func stop() {
        commitWaiting()
        deliver([.stopping])
    }

    private func enqueue(_ event: Event) {
        if waiting.isEmpty && !recorders.contains(where: \.hasPending) {
            if case .batch(let batch, _) = event, let last = batch.lastSequence { undo?.settled(through: last) }
            return deliver(event)
        }
        if waiting.isEmpty { scheduleCommit() }
        waiting.append(event)
    }

    /// Makes what waits durable, then replies and publishes it, in order; or, when a
    /// recorder refuses it, takes it back and tells each caller why.
    public func commitWaiting() {
        var refusal: ProgressError?
        // What a recorder causes while it commits joins the group, and is committed with it.
        isCommitting = true
        defer { isCommitting = false }
        for recorder in recorders where recorder.hasPending {
            do throws(ProgressError) {
                try recorder.commit()
            } catch {
                refusal = refusal ?? error
            }
        }
        let group = waiting
        waiting.removeAll()
        guard let refusal else {
            if let last = group.lazy.compactMap(\.lastSequence).last { undo?.settled(through: last) }
            return deliver(group)
        }
        if let first = group.lazy.compactMap(\.firstSequence).first { undo?.takeBack(from: first) }
        var departed: [ClientID] = []
        deliver(group.map { event in
            switch event {
            case .batch(let batch, let reply) where !batch.isEmpty: return .refused(batch, reply: reply, refusal)
            case .departed(let client): departed.append(client)
            default: break
            }
            return event
        }.filter { if case .departed = $0 { false } else { true } })
        for client in departed {
            for batch in undo?.departedAgain(client) ?? [] { submit(batch) }
            depart(client)
        }
    }

    public var hasWaiting: Bool { !waiting.isEmpty }

    /// One event, the usual case: delivered at once, with no list built for it, unless
    /// others are being delivered (then it follows them).
    private func deliver(_ event: Event) {
        guard !isDelivering else { return delivering.append(event) }
        isDelivering = true
        handle(event)
        isDelivering = false
        if !delivering.isEmpty { deliver([]) }
    }

    private func deliver(_ events: [Event]) {
        delivering += events
        guard !isDelivering else { return }
        isDelivering = true
        defer { isDelivering = false }
        var next = 0
        while next < delivering.count {
            handle(delivering[next])
            next += 1
        }
        delivering.removeAll()
    }

    private func handle(_ event: Event) {
        switch event {
        case .batch(let batch, let reply):
            reply?(nil)
            publish(batch)
        case .refused(let batch, let reply, let refusal):
            reply?(refusal)
            // Its numbers are used: the next batch follows them.
            if let last = batch.lastSequence { lastPublished = last }
        case .departed(let client):
            for listener in listeners { listener.output.clientLeft(client) }
        case .stopping:
            for listener in listeners { listener.output.stop() }
        }
    }

    private func publish(_ batch: ChangeBatch) {
        guard let first = batch.changes.first, let last = batch.lastSequence else { return }
        // Batches leave the front door numbered; one published out of order or twice would
        // show outputs a past that did not happen.
        precondition(
            lastPublished.map { first.sequence == $0 + 1 } ?? true,
            "change \(first.sequence) published after \(lastPublished ?? 0)")
        lastPublished = last
        // What the batch could matter to: nil when a task came or went, or a request or a
        // restart came with it (every output hears those).
        var touched: TaskProperties? = []
        for change in batch.changes {
            guard change.kind == .updated, change.requests.isEmpty, !change.isRestart else {
                touched = nil
                break
            }
            touched?.formUnion(change.properties)
        }
        for listener in listeners {
            if let interest = listener.interest, let touched, touched.isDisjoint(with: interest) { continue }
            listener.output.publish(batch)
        }
    }

    /// Only a read calls it (`TaskFrontDoor.read`), after the values held are applied.
    func flushBeforeRead(_ scope: ReadScope, tasks: TaskView) {
        for listener in listeners { listener.output.flushBeforeRead(scope, tasks: tasks) }
    }
}

extension ChangeRecorder {
    public var commitsAtOnce: Bool { false }
}
