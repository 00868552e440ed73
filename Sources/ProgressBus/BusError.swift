import CGLib

/// A failed method call, as Swift sees it: the D-Bus error name the peer (or the bus)
/// replied with and its message, or what went wrong on this side, sorted into `kind`.
public struct BusError: Error, Equatable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        /// An error reply; `name` says which.
        case remote
        /// No reply within the call's timeout.
        case timedOut
        /// The connection closed before the reply came.
        case disconnected
        /// GDBus refused the call or its reply: a reply of another type than the call asked
        /// for, or a message it can not carry.
        case invalidMessage
        /// Any other local failure (no bus, an address that does not work).
        case local
    }

    /// The D-Bus error name, such as "org.progressd.Progress1.Error.NoSuchTask"; empty when
    /// the failure was local.
    public let name: String
    /// The peer's message, without GDBus's `GDBus.Error:NAME: ` prefix.
    public let message: String
    public let kind: Kind

    public var description: String { name.isEmpty ? message : "\(name): \(message)" }

    public init(name: String, message: String, kind: Kind? = nil) {
        self.name = name
        self.message = message
        self.kind = kind ?? (name.isEmpty ? .local : .remote)
    }

    /// The error a GError stands for, which it frees.
    public init(consuming error: UnsafeMutablePointer<GError>?) {
        guard let error else {
            self.init(name: "", message: "unknown error")
            return
        }
        defer { g_error_free(error) }
        if g_dbus_error_is_remote_error(error) != 0, let remote = g_dbus_error_get_remote_error(error) {
            let name = String(cString: remote)
            g_free(remote)
            _ = g_dbus_error_strip_remote_error(error)
            self.init(name: name, message: String(cString: error.pointee.message), kind: .remote)
            return
        }
        let kind: Kind = if error.pointee.domain != g_io_error_quark() {
            .local
        } else {
            switch GIOErrorEnum(rawValue: UInt32(error.pointee.code)) {
            case G_IO_ERROR_TIMED_OUT: .timedOut
            case G_IO_ERROR_CLOSED: .disconnected
            case G_IO_ERROR_INVALID_ARGUMENT: .invalidMessage
            default: .local
            }
        }
        self.init(name: "", message: String(cString: error.pointee.message), kind: kind)
    }

    /// Whether the peer never read the call: no reply in time (from GDBus or the bus), a
    /// closed connection, or a name the bus does not know. An error reply is an answer.
    public var isNoAnswer: Bool {
        switch kind {
        case .timedOut, .disconnected: true
        case .remote:
            name == "org.freedesktop.DBus.Error.NoReply" || name == "org.freedesktop.DBus.Error.ServiceUnknown"
        case .invalidMessage, .local: false
        }
    }
}
