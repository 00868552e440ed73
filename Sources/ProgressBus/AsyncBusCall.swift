import CGLib

/// An asynchronous method call to another peer, with a Swift closure for the reply: the
/// daemon never blocks its main loop on a peer that may be slow or gone.
public enum AsyncBusCall {
    /// Calls `method`; `done` gets the reply tuple (borrowed for the call) or the error text.
    public static func call(
        _ connection: OpaquePointer, destination: String, path: String, interface: String, method: String,
        _ parameters: OpaquePointer, replyType: String?, timeoutMilliseconds: Int32 = 25_000,
        done: @escaping (Result<OpaquePointer, CallFailure>) -> Void
    ) {
        let box = Unmanaged.passRetained(ReplyBox(done, replyType: replyType)).toOpaque()
        // The reply's type is checked here rather than by GDBus: a GVariantType made from a
        // Swift string would not outlive the call.
        g_dbus_connection_call(
            connection, destination, path, interface, method, parameters, nil,
            G_DBUS_CALL_FLAGS_NO_AUTO_START, timeoutMilliseconds, nil,
            { source, result, userData in
                assertOnMainLoop()
                let box = Unmanaged<ReplyBox>.fromOpaque(userData!).takeRetainedValue()
                var error: UnsafeMutablePointer<GError>?
                if let reply = g_dbus_connection_call_finish(OpaquePointer(source), result, &error) {
                    let type = Variant.typeString(reply)
                    if let expected = box.replyType, type != expected {
                        box.done(.failure(CallFailure(message: "the reply has type \(type), not \(expected)")))
                    } else {
                        box.done(.success(reply))
                    }
                    g_variant_unref(reply)
                } else {
                    box.done(.failure(CallFailure(message: consumeMessage(error))))
                }
            }, box)
    }

    /// A call that expects no reply (JobViewV3's update and terminate are NoReply).
    public static func send(
        _ connection: OpaquePointer, destination: String, path: String, interface: String, method: String, _ parameters: OpaquePointer
    ) {
        let message = g_dbus_message_new_method_call(destination, path, interface, method)!
        g_dbus_message_set_body(message, parameters)
        g_dbus_message_set_flags(message, G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED)
        var error: UnsafeMutablePointer<GError>?
        if g_dbus_connection_send_message(connection, message, G_DBUS_SEND_MESSAGE_FLAGS_NONE, nil, &error) == 0 {
            Log.warning("could not send \(interface).\(method) to \(destination): \(consumeMessage(error))")
        }
        g_object_unref(UnsafeMutableRawPointer(message))
    }

    public struct CallFailure: Error { public let message: String }

    private final class ReplyBox {
        let done: (Result<OpaquePointer, CallFailure>) -> Void
        let replyType: String?
        init(_ done: @escaping (Result<OpaquePointer, CallFailure>) -> Void, replyType: String?) {
            self.done = done
            self.replyType = replyType
        }
    }
}
