import CGLib

/// A service on the session bus: connects, lets `setUp` export its objects, then owns
/// `busName` and runs the GLib main loop until SIGTERM/SIGINT (exit 0), until the bus
/// connection closes or the name can not be owned (exit 1), or until it hands over to
/// another program (`handOver`, exit 0 with `handedOver` set).
public final class ServiceRunner {
    private let busName: String
    private var loop: OpaquePointer?
    private var connection: OpaquePointer?
    private var owner: guint = 0
    private var exitCode: Int32 = 0
    private var stopping = false
    /// Whether the loop ended to hand over (`handOver`): the caller starts the next program.
    public private(set) var handedOver = false
    private var handOverPoll: guint = 0

    public init(busName: String) {
        self.busName = busName
    }

    public func run(setUp: (OpaquePointer) throws(DaemonError) -> Void, tearDown: () -> Void) -> Int32 {
        var error: UnsafeMutablePointer<GError>?
        guard let connection = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, &error) else {
            Log.error("could not connect to the session bus: \(consumeMessage(error))")
            return 1
        }
        defer { g_object_unref(UnsafeMutableRawPointer(connection)) }
        self.connection = connection
        // GDBus would raise SIGTERM on close, which reads as a clean stop; a lost bus is a failure.
        g_dbus_connection_set_exit_on_close(connection, 0)

        do {
            try setUp(connection)
        } catch {
            Log.error(error.description)
            return 1
        }
        defer { tearDown() }

        loop = g_main_loop_new(nil, 0)
        defer { g_main_loop_unref(loop) }
        let userData = Unmanaged.passUnretained(self).toOpaque()
        let closed: @convention(c) (OpaquePointer?, gboolean, UnsafeMutablePointer<GError>?, gpointer?) -> Void = {
            _, _, _, userData in
            ServiceRunner.from(userData).stop(exitCode: 1, "the bus connection closed")
        }
        _ = shim_signal_connect(
            UnsafeMutableRawPointer(connection), "closed", unsafeBitCast(closed, to: GCallback.self), userData)
        let stopOnSignal: GSourceFunc = { userData in
            ServiceRunner.from(userData).stop(exitCode: 0, "stopping on signal")
            return 1 // G_SOURCE_CONTINUE: the loop is ending anyway.
        }
        let sigterm = g_unix_signal_add(SIGTERM, stopOnSignal, userData)
        let sigint = g_unix_signal_add(SIGINT, stopOnSignal, userData)
        defer {
            g_source_remove(sigterm)
            g_source_remove(sigint)
        }

        owner = g_bus_own_name_on_connection(
            connection, busName, G_BUS_NAME_OWNER_FLAGS_DO_NOT_QUEUE,
            { connection, name, userData in
                let address = g_getenv("DBUS_SESSION_BUS_ADDRESS").map { String(cString: $0) } ?? ""
                Log.notice("serving \(String(cString: name!)) on \(address.isEmpty ? "the session bus" : address)")
            },
            { connection, name, userData in
                ServiceRunner.from(userData).stop(
                    exitCode: 1,
                    "could not own \(String(cString: name!)): another instance is running, or the bus refused the name")
            },
            userData, nil)
        defer {
            if owner != 0 { g_bus_unown_name(owner) }
            if handOverPoll != 0 { g_source_remove(handOverPoll) }
        }

        g_main_loop_run(loop)
        // Whatever the daemon replied to has been queued; send it before the connection goes.
        g_dbus_connection_flush_sync(connection, nil, nil)
        return exitCode
    }

    /// Ends the service so that another program takes its place, losing no call sent to
    /// the name: the name is released first, so that the bus holds what is sent to it from
    /// then on (and starts nobody new for it while a daemon holds the state: see
    /// `StandBy`) until the next program owns it; then, once the bus has answered a call
    /// sent after the release (every call it gave the name before is ahead of that answer)
    /// and `quiet` says no call is in flight, the loop ends (polled every 10 ms).
    public func handOver(_ reason: String, when quiet: @escaping () -> Bool) {
        guard !stopping, owner != 0, let connection else { return }
        Log.notice(reason)
        g_bus_unown_name(owner)
        owner = 0
        BusCall.call(
            connection, destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
            interface: "org.freedesktop.DBus", method: "GetId", replyType: "(s)"
        ) { [self] _ in
            let poll: GSourceFunc = { userData in
                let runner = ServiceRunner.from(userData)
                guard runner.quiet?() ?? true else { return 1 }  // G_SOURCE_CONTINUE
                runner.handOverPoll = 0
                runner.handedOver = true
                runner.stop(exitCode: 0, "no call is in flight: handing over")
                return 0
            }
            self.quiet = quiet
            handOverPoll = g_timeout_add(10, poll, Unmanaged.passUnretained(self).toOpaque())
        }
    }

    private var quiet: (() -> Bool)?

    /// The first reason to stop is the one that counts: a closed bus also loses the name,
    /// and that second report would only mislead.
    private func stop(exitCode: Int32, _ reason: String) {
        guard !stopping else { return }
        stopping = true
        if exitCode != 0 { Log.error(reason) } else { Log.notice(reason) }
        self.exitCode = exitCode
        g_main_loop_quit(loop)
    }

    private static func from(_ userData: gpointer?) -> ServiceRunner {
        Unmanaged<ServiceRunner>.fromOpaque(userData!).takeUnretainedValue()
    }
}
