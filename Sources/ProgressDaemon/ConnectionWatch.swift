import CGLib
import ProgressBus
import ProgressModel

/// Lost connections as an input: a unique name (":1.42") that loses its owner is a client
/// that left the bus, and the daemon lets go of what it held (through `CallerIdentityCache`,
/// which handles the departure after any call still waiting for the client's identity).
/// The departure itself reaches the outputs as a stream event (`ChangeOutput.clientLeft`).
final class ConnectionWatch: DaemonInput {
    private let context: DaemonContext
    private var identities: CallerIdentityCache { context.identities }
    private var subscription: UInt32 = 0

    init(context: DaemonContext) {
        self.context = context
    }

    var interest: TaskProperties { [] }
    func publish(_ batch: ChangeBatch) {}

    func start() {
        subscription = g_dbus_connection_signal_subscribe(
            context.connection, "org.freedesktop.DBus", "org.freedesktop.DBus", "NameOwnerChanged",
            "/org/freedesktop/DBus",
            nil, G_DBUS_SIGNAL_FLAGS_NONE,
            { _, _, _, _, _, parameters, userData in
                assertOnMainLoop()
                let name = Variant.stringChild(parameters!, 0)
                let newOwner = Variant.stringChild(parameters!, 2)
                if name.hasPrefix(":") && newOwner.isEmpty {
                    Unmanaged<ConnectionWatch>.fromOpaque(userData!).takeUnretainedValue()
                        .identities.connectionLeft(name)
                }
            },
            Unmanaged.passUnretained(self).toOpaque(), nil)
    }

    func stop() {
        if subscription != 0 { g_dbus_connection_signal_unsubscribe(context.connection, subscription) }
        subscription = 0
    }
}
