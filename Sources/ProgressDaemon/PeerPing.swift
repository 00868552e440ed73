import ProgressBus
import ProgressModel
import ProgressPolicies

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
        BusCall.call(
            connection, destination: peer.uniqueName, path: "/", interface: "org.freedesktop.DBus.Peer", method: "Ping",
            replyType: nil, timeoutMilliseconds: Self.timeoutMilliseconds
        ) { result in
            guard case .failure(let failure) = result else { return done(true) }
            done(!failure.isNoAnswer)
        }
    }
}
