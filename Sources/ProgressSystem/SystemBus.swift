import CGLib
import ProgressBus
import ProgressModel

/// The system bus for the system-job inputs (`DBUS_SYSTEM_BUS_ADDRESS`, or the default
/// system bus). It connects asynchronously; a bus that is missing, refuses progressd or
/// goes away is logged once and tried again with a growing pause (1 s to 60 s), never an
/// error: system jobs are extra, the session's tasks are the daemon's work. While it is
/// connected each source's name is watched (GDBus's name watch, on NameOwnerChanged).
final class SystemBus {
    private let clock: MainLoopClock
    private var sources: [SystemJobSource] = []
    private var connection: OpaquePointer?
    private var closedHandler: gulong = 0
    private var watches: [UInt32] = []
    private var present: Set<ObjectIdentifier> = []
    private var retryDelaySeconds: Int64 = 1
    private var reportedAbsence = false
    private var connecting = false
    private var stopped = false
    private lazy var retry = MainLoopTimer(clock: clock) { [unowned self] in connect() }

    static let busGone = "the system bus went away while the job ran"

    init(clock: MainLoopClock) { self.clock = clock }

    func add(_ source: SystemJobSource) { sources.append(source) }

    private var userData: gpointer { Unmanaged.passUnretained(self).toOpaque() }
    private static func from(_ pointer: gpointer?) -> SystemBus {
        Unmanaged<SystemBus>.fromOpaque(pointer!).takeUnretainedValue()
    }

    /// The address GLib would use: `DBUS_SYSTEM_BUS_ADDRESS`, or the standard socket. Reading
    /// it touches no socket, so asking for it on the main loop does not block.
    static var address: String? {
        var error: UnsafeMutablePointer<GError>?
        guard let address = g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SYSTEM, nil, &error) else {
            Log.warning("no system bus address: \(consumeMessage(error))")
            return nil
        }
        defer { g_free(address) }
        return String(cString: address)
    }

    func connect() {
        guard !stopped, !connecting, connection == nil, let address = Self.address else { return }
        connecting = true
        BusCall.connect(to: address) { [self] result in
            connecting = false
            switch result {
            case .success(let connection): connected(connection)
            case .failure(let failure): failed("could not connect to the system bus: \(failure)")
            }
        }
    }

    private func failed(_ message: String) {
        if !reportedAbsence {
            reportedAbsence = true
            Log.notice("\(message); system jobs show once it is there (trying again)")
        }
        retry.arm(at: clock.monotonicMicros + retryDelaySeconds * 1_000_000)
        retryDelaySeconds = min(60, retryDelaySeconds * 2)
    }

    private func connected(_ connection: OpaquePointer) {
        guard !stopped else {
            g_object_unref(UnsafeMutableRawPointer(connection))
            return
        }
        self.connection = connection
        retryDelaySeconds = 1
        if reportedAbsence { Log.notice("connected to the system bus: reading system jobs") }
        reportedAbsence = false
        g_dbus_connection_set_exit_on_close(connection, 0)
        let onClosed: @convention(c) (OpaquePointer?, gboolean, UnsafeMutablePointer<GError>?, gpointer?) -> Void = {
            _, _, _, userData in
            assertOnMainLoop()
            SystemBus.from(userData).lost()
        }
        closedHandler = shim_signal_connect(
            UnsafeMutableRawPointer(connection), "closed", unsafeBitCast(onClosed, to: GCallback.self), userData)
        for source in sources {
            let box = Unmanaged.passRetained(WatchBox(bus: self, source: source)).toOpaque()
            watches.append(g_bus_watch_name_on_connection(
                connection, source.busName, G_BUS_NAME_WATCHER_FLAGS_NONE,
                { connection, _, owner, box in
                    assertOnMainLoop()
                    let watch = Unmanaged<WatchBox>.fromOpaque(box!).takeUnretainedValue()
                    guard let connection, let owner, let bus = watch.bus else { return }
                    bus.present.insert(ObjectIdentifier(watch.source))
                    watch.source.appeared(on: connection, owner: String(cString: owner))
                },
                { connection, name, box in
                    assertOnMainLoop()
                    let watch = Unmanaged<WatchBox>.fromOpaque(box!).takeUnretainedValue()
                    guard let bus = watch.bus, bus.present.remove(ObjectIdentifier(watch.source)) != nil else { return }
                    // GDBus reports every watched name vanished when the bus closes.
                    let busClosed = connection.map { g_dbus_connection_is_closed($0) != 0 } ?? true
                    watch.source.vanished(
                        busClosed
                            ? SystemBus.busGone : "\(String(cString: name!)) left the system bus while the job ran")
                },
                box, { box in Unmanaged<WatchBox>.fromOpaque(box!).release() }))
        }
    }

    /// The bus closed (dbus-daemon stopped, or dropped progressd): the sources' live jobs
    /// fail, since no outcome can come, and the bridge tries to connect again.
    private func lost() {
        disconnect(why: Self.busGone)
        if !stopped {
            Log.notice("lost the system bus; system jobs show again once it is back (trying again)")
            reportedAbsence = true
            retry.arm(at: clock.monotonicMicros + retryDelaySeconds * 1_000_000)
        }
    }

    /// Drops the connection; `why` goes to the sources' live jobs, which fail (nil when the
    /// daemon stops: its tasks go with it, and a failure would only set off notifications).
    private func disconnect(why: String?) {
        guard let connection else { return }
        for id in watches { g_bus_unwatch_name(id) }
        watches.removeAll()
        for source in sources where present.remove(ObjectIdentifier(source)) != nil {
            if let why { source.vanished(why) }
        }
        g_signal_handler_disconnect(UnsafeMutableRawPointer(connection), closedHandler)
        g_object_unref(UnsafeMutableRawPointer(connection))
        self.connection = nil
    }

    func stop() {
        stopped = true
        retry.cancel()
        disconnect(why: nil)
    }

    private final class WatchBox {
        weak var bus: SystemBus?
        let source: SystemJobSource
        init(bus: SystemBus, source: SystemJobSource) {
            self.bus = bus
            self.source = source
        }
    }
}
