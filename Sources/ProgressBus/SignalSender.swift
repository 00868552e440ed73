import CGLib

/// Emits signals on one connection, logging (never throwing) when GDBus refuses one: a
/// signal that can not go out must not cost the caller its reply. Signals are named by
/// their SignalTable (PropertiesChanged, the standard one, by GDBus's own interface).
public struct SignalSender {
    public let connection: OpaquePointer

    public init(connection: OpaquePointer) {
        self.connection = connection
    }

    /// A signal to whoever listens; `signal` comes from its interface's SignalTable.
    public func broadcast(_ signal: InterfaceSignal, path: String, _ parameters: OpaquePointer) {
        send(to: nil, path: path, interface: signal.interface, member: signal.member, parameters)
    }

    /// A signal for one connection only.
    public func unicast(_ signal: InterfaceSignal, to destination: String, path: String, _ parameters: OpaquePointer) {
        send(to: destination, path: path, interface: signal.interface, member: signal.member, parameters)
    }

    /// org.freedesktop.DBus.Properties.PropertiesChanged with `changed` (an a{sv}) and
    /// nothing invalidated.
    public func propertiesChanged(path: String, interface: String, _ changed: OpaquePointer) {
        let invalidated = Variant.container("as") { _ in }
        send(
            to: nil, path: path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
            Variant.tuple([Variant.string(interface), changed, invalidated]))
    }

    private func send(
        to destination: String?, path: String, interface: String, member: String, _ parameters: OpaquePointer
    ) {
        var error: UnsafeMutablePointer<GError>?
        if g_dbus_connection_emit_signal(connection, destination, path, interface, member, parameters, &error) == 0 {
            Log.warning(
                "could not send \(interface).\(member) on \(path)\(destination.map { " to \($0)" } ?? ""): "
                    + "\(consumeMessage(error))")
        }
    }
}
