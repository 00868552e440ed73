import CGLib
import ProgressBus
import ProgressCore

/// What every input and output of the daemon shares: the session connection, the front
/// door, the change stream and the daemon's texts. An output is added with `add`, one line
/// where the daemon is assembled; an input calls `perform` (or `deliver` what the front
/// door gave it), so that its changes reach persistence and every output in order.
public final class DaemonContext {
    public let connection: OpaquePointer
    public let frontDoor: TaskFrontDoor
    public let stream = ChangeStream()
    public let configuration: ServiceConfiguration
    public let clock: Clock
    public let signals: SignalSender
    private var stopActions: [() -> Void] = []
    private var clientLeftActions: [(ClientID) -> Void] = []
    private var announcementListeners: [(AnnouncementBudget.Spoken) -> Void] = []

    init(connection: OpaquePointer, configuration: ServiceConfiguration, clock: Clock) {
        self.connection = connection
        self.configuration = configuration
        self.clock = clock
        signals = SignalSender(connection: connection)
        // Sequence numbers start from the clock, so they keep growing across restarts.
        // Names are kept in NFC (GLib's normalizer: Core imports none), and every client
        // input is checked by the owner rules.
        frontDoor = TaskFrontDoor(
            store: TaskStore(clock: clock, limits: configuration.limits, normalizeName: DaemonContext.nfc),
            access: OwnerAccess(), firstSequence: UInt64(max(1, clock.wallMicros)))
    }

    public var store: TaskStore { frontDoor.store }

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

    public func add(_ output: ChangeOutput) { stream.add(output) }

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
        stream.submit(outcome.batch)
        return outcome.error
    }

    /// A client left the bus: what it held goes (subscriptions), then its `caller` tasks fail.
    public func clientLeft(_ client: ClientID) {
        for action in clientLeftActions { action(client) }
        stream.submit(frontDoor.clientLeft(client))
    }

    public func onClientLeft(_ action: @escaping (ClientID) -> Void) { clientLeftActions.append(action) }

    /// Runs when the daemon stops, in the order added.
    public func onStop(_ action: @escaping () -> Void) { stopActions.append(action) }

    func stop() {
        for action in stopActions { action() }
        stopActions.removeAll()
    }
}
