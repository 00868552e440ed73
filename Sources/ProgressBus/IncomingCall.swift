import CGLib
import ProgressModel

/// A call as GDBus hands it to an exported object, before anything is made of it: the
/// sender and path stay C strings until a handler asks for them, so a handler that finds
/// its caller by comparing names makes no Swift string. Everything here belongs to the
/// invocation, which lives until it is answered, so a handler may keep the call and answer
/// it later (after its caller's identity is known, in its caller's turn).
public struct IncomingCall {
    /// NULL only on a peer-to-peer connection, where there is no bus to name the sender.
    public let sender: UnsafePointer<CChar>?
    public let pathPointer: UnsafePointer<CChar>
    public let parameters: OpaquePointer
    public let invocation: OpaquePointer

    public init(
        sender: UnsafePointer<CChar>?, path: UnsafePointer<CChar>, parameters: OpaquePointer, invocation: OpaquePointer
    ) {
        self.sender = sender
        pathPointer = path
        self.parameters = parameters
        self.invocation = invocation
    }

    /// The sender's unique name ("" without a bus).
    public var senderName: String { sender.map { String(cString: $0) } ?? "" }
    public var path: String { String(cString: pathPointer) }

    /// The call for a handler that works with MethodCall, its sender the connection's name.
    public func methodCall(maxReplyBytes: Int = .max) -> MethodCall {
        MethodCall(
            sender: ClientID(senderName), path: path, parameters: parameters, invocation: invocation,
            maxReplyBytes: maxReplyBytes)
    }

    /// An error reply of any name.
    public func fail(_ failure: CallFailure) {
        g_dbus_method_invocation_return_dbus_error(invocation, failure.name, failure.message)
    }
}

/// A refusal an exported object's property getter or setter answers with: a D-Bus error
/// name and its message, such as UnknownObject for a task path that names no task.
public struct CallFailure: Error, Sendable {
    public let name: String
    public let message: String

    public init(_ name: String, _ message: String) {
        self.name = name
        self.message = message
    }

    /// `org.freedesktop.DBus.Error.UnknownObject`: the path names nothing (any more).
    public static func unknownObject(_ message: String) -> CallFailure {
        CallFailure("org.freedesktop.DBus.Error.UnknownObject", message)
    }

    /// `org.freedesktop.DBus.Error.PropertyReadOnly`.
    public static func readOnly(_ message: String) -> CallFailure {
        CallFailure("org.freedesktop.DBus.Error.PropertyReadOnly", message)
    }
}
