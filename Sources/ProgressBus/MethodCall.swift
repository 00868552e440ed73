import CGLib
import ProgressModel

/// One incoming method call: who sent it, on which object, its arguments (GDBus has checked
/// their types against the interface's XML), and the invocation to answer. Every invocation
/// is answered, NoReply methods too (GDBus then sends nothing but frees the invocation).
public struct MethodCall {
    public let sender: ClientID
    public let path: String
    public let parameters: OpaquePointer
    public let invocation: OpaquePointer
    /// Replies larger than this are refused rather than sent: the bus would drop the daemon's
    /// connection for a message it can not carry (`Limits.maxReplyBytes`).
    public let maxReplyBytes: Int

    public init(
        sender: ClientID, path: String, parameters: OpaquePointer, invocation: OpaquePointer, maxReplyBytes: Int = .max
    ) {
        self.sender = sender
        self.path = path
        self.parameters = parameters
        self.invocation = invocation
        self.maxReplyBytes = maxReplyBytes
    }

    public func string(_ index: Int) -> String { Variant.stringChild(parameters, index) }
    public func int32(_ index: Int) -> Int32 { Variant.int32Child(parameters, index) }
    public func uint32(_ index: Int) -> UInt32 { Variant.uint32Child(parameters, index) }
    public func uint64(_ index: Int) -> UInt64 { Variant.uint64Child(parameters, index) }
    public func double(_ index: Int) -> Double { Variant.doubleChild(parameters, index) }
    public func bool(_ index: Int) -> Bool { Variant.boolChild(parameters, index) }
    public func options(_ index: Int) -> [(key: String, value: OptionValue)] { Variant.optionsChild(parameters, index) }
    /// The options of `call`, refused from their number alone when there are more than its keys.
    public func options(
        _ index: Int, for call: String, accepting keys: [String]
    ) throws(ProgressError) -> [(key: String, value: OptionValue)] {
        try Variant.optionsChild(parameters, index, for: call, accepting: keys)
    }
    /// Child `index`, which the caller unrefs.
    public func child(_ index: Int) -> OpaquePointer { Variant.child(parameters, index) }

    public func reply(_ value: OpaquePointer?) {
        Self.reply(invocation, value, maxBytes: maxReplyBytes)
    }

    /// The last guard before a reply goes out: the handlers bound what they build, and this
    /// refuses (and logs) what still would not fit, so no reply costs the daemon its
    /// connection. A reply GDBus can not send is logged and dropped by GDBus itself.
    public static func reply(_ invocation: OpaquePointer, _ value: OpaquePointer?, maxBytes: Int) {
        if let value, Int(g_variant_get_size(value)) > maxBytes {
            let size = Int(g_variant_get_size(value))
            g_variant_unref(g_variant_ref_sink(value))
            let method = String(cString: g_dbus_method_invocation_get_method_name(invocation))
            Log.warning("refused a \(method) reply of \(size) bytes (the limit is \(maxBytes))")
            g_dbus_method_invocation_return_dbus_error(
                invocation, BusNames.errorPrefix + "LimitExceeded",
                "the reply to \(method) would be \(size) bytes; the limit is \(maxBytes); "
                    + "ask for less (SnapshotPage reads tasks in pages)")
            return
        }
        if value == nil, hasNoOutArguments(invocation) {
            return replyEmpty(invocation)
        }
        g_dbus_method_invocation_return_value(invocation, value)
    }

    /// Whether the call's method, as the XML declares it, returns nothing.
    private static func hasNoOutArguments(_ invocation: OpaquePointer) -> Bool {
        guard let method = g_dbus_method_invocation_get_method_info(invocation) else { return false }
        return method.pointee.out_args?[0] == nil
    }

    /// The reply to a method that returns nothing: a method return with no body (the D-Bus
    /// specification reads a missing signature as the empty one). GDBus's own return would
    /// build an empty tuple, derive the method's out-signature from its XML to check the
    /// tuple against, and give the reply that body, on every SetFraction a job sends. A call
    /// sent with NO_REPLY_EXPECTED gets nothing, as GDBus would do. Either way the
    /// invocation, which a return takes over, is released here.
    private static func replyEmpty(_ invocation: OpaquePointer) {
        let message = g_dbus_method_invocation_get_message(invocation)
        if g_dbus_message_get_flags(message).rawValue & G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED.rawValue == 0 {
            let reply = g_dbus_message_new_method_reply(message)
            // A connection that closed meanwhile refuses the send; there is nobody to tell.
            g_dbus_connection_send_message(
                g_dbus_method_invocation_get_connection(invocation), reply, G_DBUS_SEND_MESSAGE_FLAGS_NONE, nil, nil)
            g_object_unref(UnsafeMutableRawPointer(reply))
        }
        g_object_unref(UnsafeMutableRawPointer(invocation))
    }

    public func reply(_ error: ProgressError) {
        fail(BusNames.errorName(error), error.message)
    }

    /// An error reply of any name, such as `org.freedesktop.DBus.Error.UnknownObject`.
    public func fail(_ errorName: String, _ message: String) {
        g_dbus_method_invocation_return_dbus_error(invocation, errorName, message)
    }
}
