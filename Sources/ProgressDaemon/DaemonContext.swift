import CGLib
import ProgressBus
import ProgressModel
import ProgressCore
import ProgressPolicies

/// An input: something outside the daemon that makes it act (a bus protocol, a timer).
/// Every input is also a listener on the stream, so it hears departures and the stop there.
public protocol DaemonInput: ChangeOutput {
    /// Called once, after every output is in the list and has heard the restored tasks:
    /// only now may the input act.
    func start() throws(DaemonError)
}

/// What every input and output of the daemon shares: the session connection, the front
/// door, the change stream, who each connection is, and the daemon's texts.
///
/// The one path: every part is added with `add`, one line where the daemon is assembled,
/// into one ordered list; then `start` puts the restored tasks through the stream as a
/// batch and starts the inputs in the order they were added. An input calls `perform`
/// with the identity of the client behind it (`withIdentity`), so that its changes pass the
/// same rules and caps and reach persistence and every output in order.
public final class DaemonContext {
    public let connection: OpaquePointer
    public let frontDoor: TaskFrontDoor
    public let stream = ChangeStream()
    public let configuration: ServiceConfiguration
    public let clock: MainLoopClock
    public let signals: SignalSender
    /// Each connection's identity, learned before anything it sent is acted on.
    let identities: CallerIdentityCache
    private var inputs: [DaemonInput] = []
    private var started = false
    private var stopped = false
    private var announcementListeners: [(AnnouncementBudget.Spoken) -> Void] = []

    init(connection: OpaquePointer, configuration: ServiceConfiguration, clock: MainLoopClock) {
        self.connection = connection
        self.configuration = configuration
        self.clock = clock
        signals = SignalSender(connection: connection)
        identities = CallerIdentityCache(connection: connection, clock: clock)
        // Sequence numbers start from the clock, so they keep growing across restarts.
        // Names are kept in NFC (GLib's normalizer: Core imports none), and every client
        // input is checked by the owner rules.
        frontDoor = TaskFrontDoor(
            clock: clock, limits: configuration.limits, normalizeName: DaemonContext.nfc, access: OwnerAccess(),
            firstSequence: UInt64(max(1, clock.wallMicros)), stream: stream)
    }

    /// Unicode NFC, so canonically equivalent names are one name with one object path.
    /// The text is valid UTF-8 (GDBus checks every string), so GLib always returns one.
    @Sendable static func nfc(_ text: String) -> String {
        guard let composed = g_utf8_normalize(text, -1, G_NORMALIZE_NFC) else { return text }
        defer { g_free(composed) }
        return String(cString: composed)
    }
    public var limits: Limits { configuration.limits }
    /// Texts in the daemon's own locale.
    public var texts: TaskDescribing { configuration.texts }

    /// Texts for a client's locale string; "" is the daemon's own.
    public func texts(forLocale locale: String) throws(ProgressError) -> TaskDescribing {
        locale.isEmpty ? configuration.texts : try configuration.textsForLocale(locale)
    }

    /// Adds an output (and, when it is one, an input) to the one ordered list. Parts are
    /// added before any input starts: a part added later would miss what came before it.
    public func add(_ part: ChangeOutput) {
        precondition(!started, "every output is added before the inputs start")
        stream.add(part)
        if let input = part as? DaemonInput { inputs.append(input) }
    }

    /// The restored tasks go down the stream as one batch, heard by every output; then the
    /// inputs start, in the order they were added.
    func start() throws(DaemonError) {
        precondition(!started, "the daemon starts once")
        started = true
        let (batch, problems) = frontDoor.restore(configuration.restoredRecords)
        for problem in problems { Log.warning(problem) }
        stream.submit(batch)
        for input in inputs { try input.start() }
    }

    /// The ledger every cap is charged in (tasks, subscriptions, KDE views, launcher entries).
    public var caps: CapLedger { frontDoor.caps }

    /// Runs `body` with the ClientID of the connection `sender` (a unique name), identity
    /// included: at once when it is known, else once the bus has told, after the sender's
    /// earlier calls and signals. Every input learns who is behind what it receives here.
    public func withIdentity(of sender: String, _ body: @escaping (ClientID) -> Void) {
        identities.withIdentity(of: sender, body)
    }

    /// Hears every announcement the daemon's one budget lets through (AnnouncementOutput):
    /// an announcer other than the broadcast speaks these, and nothing of its own.
    public func onAnnouncement(_ listener: @escaping (AnnouncementBudget.Spoken) -> Void) {
        announcementListeners.append(listener)
    }

    func announced(_ spoken: AnnouncementBudget.Spoken) {
        for listener in announcementListeners { listener(spoken) }
    }

    /// An input's mutation with nobody waiting on a reply: the front door, then persistence,
    /// then every output. Returns the error that stopped it, if any.
    @discardableResult
    public func perform(_ command: TaskCommand, by origin: ChangeOrigin) -> ProgressError? {
        let outcome = frontDoor.perform(command, by: origin)
        submitHeld(outcome)
        stream.submit(outcome.batch)
        return outcome.error
    }

    /// The batches of the values the front door applied before a command, down the stream
    /// before the command's own; or, when it held the command's value, the timer that
    /// applies it when it falls due (`StagedValueInput`).
    func submitHeld(_ outcome: CommandOutcome) {
        for batch in outcome.held { stream.submit(batch) }
        if let due = outcome.heldValuesDue { heldValuesDue(due) }
    }

    /// Arms the timer of held values (set by `StagedValueInput`).
    var heldValuesDue: (Int64) -> Void = { _ in }

    /// Batches the front door made, in order, with nobody waiting on a reply.
    func submit(_ batches: [ChangeBatch]) {
        for batch in batches { stream.submit(batch) }
    }

    /// Hands the bus name and the state over to the program at `path` (`ProgramWatch`), once
    /// no call is in flight (`isQuiet`); set by `Daemon.run`, which execs it after the stop.
    var handOver: (_ path: String, _ reason: String) -> Void = { _, _ in }

    /// No call waits for its caller's identity, in a caller's turn, or in steps: what is
    /// left (held values, replies waiting for their sync) is finished by the stop.
    var isQuiet: Bool { identities.isQuiet }

    /// A client left the bus: its `caller` tasks fail, then every output lets go of it.
    func clientLeft(_ client: ClientID) {
        submit(frontDoor.clientLeft(client))
        stream.depart(client)
    }

    /// The one way to look at the tasks (`TaskFrontDoor.read`): the values the front door
    /// holds are applied and go down the stream, what outputs hold back for `scope` is
    /// sent, then `body` sees the tasks; so a reply built there shows the newest state and
    /// never overtakes a signal about an older one.
    public func read<Result, Failure: Error>(
        _ scope: ReadScope, _ body: (TaskView) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try frontDoor.read(scope, body)
    }

    /// The last event down the stream: held values are applied and what waits is
    /// committed, then every part stops.
    func stop() {
        guard started, !stopped else { return }
        stopped = true
        submit(frontDoor.applyHeld())
        stream.stop()
    }
}
