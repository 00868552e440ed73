import CGLib
import ProgressBus
import ProgressCore

/// One incoming method call: who sent it, its arguments, and the invocation to answer.
struct MethodCall {
    let sender: ClientID
    let parameters: OpaquePointer
    let invocation: OpaquePointer
    /// Replies larger than this are refused rather than sent: the bus would drop the daemon's
    /// connection for a message it can not carry (`Limits.maxReplyBytes`).
    let maxReplyBytes: Int

    func string(_ index: Int) -> String { Variant.stringChild(parameters, index) }
    func uint32(_ index: Int) -> UInt32 { Variant.uint32Child(parameters, index) }
    func double(_ index: Int) -> Double { Variant.doubleChild(parameters, index) }
    func options(_ index: Int) -> [(key: String, value: OptionValue)] { Variant.optionsChild(parameters, index) }
    func child(_ index: Int) -> OpaquePointer { Variant.child(parameters, index) }

    func reply(_ value: OpaquePointer?) {
        Self.reply(invocation, value, maxBytes: maxReplyBytes)
    }

    /// The last guard before a reply goes out: the handlers bound what they build, and this
    /// refuses (and logs) what still would not fit, so no reply costs the daemon its
    /// connection. A reply GDBus can not send is logged and dropped by GDBus itself.
    static func reply(_ invocation: OpaquePointer, _ value: OpaquePointer?, maxBytes: Int) {
        if let value, Int(g_variant_get_size(value)) > maxBytes {
            let size = Int(g_variant_get_size(value))
            g_variant_unref(g_variant_ref_sink(value))
            let method = String(cString: g_dbus_method_invocation_get_method_name(invocation))
            Log.warning("refused a \(method) reply of \(size) bytes (the limit is \(maxBytes))")
            g_dbus_method_invocation_return_dbus_error(
                invocation, BusNames.errorPrefix + "LimitExceeded",
                "the reply to \(method) would be \(size) bytes; the limit is \(maxBytes); ask for less (SnapshotPage reads tasks in pages)")
            return
        }
        g_dbus_method_invocation_return_value(invocation, value)
    }

    func reply(_ error: ProgressError) {
        g_dbus_method_invocation_return_dbus_error(invocation, BusNames.errorName(error), error.message)
    }
}

/// What a mutating call's handler asks of the service: the command, and the reply value
/// if it succeeds (built only then).
struct Mutation {
    let command: TaskCommand
    var replyValue: () -> OpaquePointer? = { nil }
}
