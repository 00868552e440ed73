import CGLib
import ProgressBus
import ProgressCore

/// org.freedesktop.DBus.Peer.Ping to a subscriber, asynchronously (never a synchronous
/// call on the main loop): whether it answers tells whether it still reads what it is
/// sent. Every D-Bus library answers Peer.Ping on its own (GDBus even from its worker
/// thread), so a client that does not is stopped, stuck, or gone.
final class PeerPing {
    private let connection: OpaquePointer
    /// How long GDBus waits for the answer before calling it a timeout; the pacing decides
    /// silence much sooner, this only bounds what one outstanding ping holds.
    static let timeoutMilliseconds: Int32 = 30_000

    init(connection: OpaquePointer) {
        self.connection = connection
    }

    /// Pings `peer`; `done` runs on the main loop with true for an answer (an error reply
    /// is one too: the peer read the call) and false for a timeout or a lost connection.
    func ping(_ peer: ClientID, _ done: @escaping (Bool) -> Void) {
        let box = Unmanaged.passRetained(PingBox(done)).toOpaque()
        g_dbus_connection_call(
            connection, peer.uniqueName, "/", "org.freedesktop.DBus.Peer", "Ping", nil, nil,
            G_DBUS_CALL_FLAGS_NO_AUTO_START, Self.timeoutMilliseconds, nil, { source, result, box in
                assertOnMainLoop()
                let done = Unmanaged<PingBox>.fromOpaque(box!).takeRetainedValue().done
                var error: UnsafeMutablePointer<GError>?
                let reply = g_dbus_connection_call_finish(OpaquePointer(source), result, &error)
                if let reply { g_variant_unref(reply) }
                guard let error else { return done(true) }
                let noAnswer = g_error_matches(error, g_io_error_quark(), Int32(G_IO_ERROR_TIMED_OUT.rawValue)) != 0
                    || g_error_matches(error, g_io_error_quark(), Int32(G_IO_ERROR_CLOSED.rawValue)) != 0
                    || g_error_matches(error, g_dbus_error_quark(), Int32(G_DBUS_ERROR_NO_REPLY.rawValue)) != 0
                    || g_error_matches(error, g_dbus_error_quark(), Int32(G_DBUS_ERROR_SERVICE_UNKNOWN.rawValue)) != 0
                g_error_free(error)
                done(!noAnswer)
            }, box)
    }
}

private final class PingBox {
    let done: (Bool) -> Void
    init(_ done: @escaping (Bool) -> Void) { self.done = done }
}
