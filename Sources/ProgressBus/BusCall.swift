import CGLib

/// Method calls to other peers: the one place progressd calls `g_dbus_connection_call`.
///
/// The daemon never blocks its main loop on a peer that may be slow or gone: `call` answers
/// through a closure on the main loop. GDBus checks the reply against `replyType` (it copies
/// the type, so a type made for the call is enough) and a reply of another type arrives as a
/// `BusError` of kind `.invalidMessage`. A call made with a `BusCancellable` that is
/// cancelled before its answer is dispatched never runs its closure: what a caller cancels
/// is what it no longer wants to hear about.
public enum BusCall {
    /// Calls `method`; `done` gets the reply tuple (borrowed for the call) or the error.
    /// A timeout of -1 is GDBus's default (25 seconds). `autoStart` lets the bus activate the
    /// destination; the default does not, so that no installed service starts behind a test.
    public static func call(
        _ connection: OpaquePointer, destination: String, path: String, interface: String, method: String,
        _ parameters: OpaquePointer? = nil, replyType: String?, timeoutMilliseconds: Int32 = -1,
        autoStart: Bool = false, cancellable: BusCancellable? = nil,
        done: @escaping (Result<OpaquePointer, BusError>) -> Void
    ) {
        let box = Unmanaged.passRetained(ReplyBox(done, cancellable)).toOpaque()
        let type = replyType.map { $0.withCString { g_variant_type_new($0) } } ?? nil
        defer { if let type { g_variant_type_free(type) } }
        g_dbus_connection_call(
            connection, destination, path, interface, method, parameters, type, flags(autoStart), timeoutMilliseconds,
            cancellable?.gCancellable,
            { source, result, userData in
                assertOnMainLoop()
                let box = Unmanaged<ReplyBox>.fromOpaque(userData!).takeRetainedValue()
                var error: UnsafeMutablePointer<GError>?
                let reply = g_dbus_connection_call_finish(OpaquePointer(source), result, &error)
                defer { if let reply { g_variant_unref(reply) } }
                if box.cancellable?.isCancelled == true {
                    if let error { g_error_free(error) }
                    return
                }
                box.done(reply.map { .success($0) } ?? .failure(BusError(consuming: error)))
            }, box)
    }

    /// A call that expects no reply (JobViewV3's update and terminate are NoReply); the
    /// callee still runs it. A call GDBus can not send is logged.
    public static func send(
        _ connection: OpaquePointer, destination: String, path: String, interface: String, method: String,
        _ parameters: OpaquePointer?, autoStart: Bool = false
    ) {
        let message = g_dbus_message_new_method_call(destination, path, interface, method)!
        defer { g_object_unref(UnsafeMutableRawPointer(message)) }
        if let parameters { g_dbus_message_set_body(message, parameters) }
        let noAutoStart = autoStart ? 0 : G_DBUS_MESSAGE_FLAGS_NO_AUTO_START.rawValue
        g_dbus_message_set_flags(
            message, GDBusMessageFlags(rawValue: G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED.rawValue | noAutoStart))
        var error: UnsafeMutablePointer<GError>?
        if g_dbus_connection_send_message(connection, message, G_DBUS_SEND_MESSAGE_FLAGS_NONE, nil, &error) == 0 {
            Log.warning("could not send \(interface).\(method) to \(destination): \(BusError(consuming: error))")
        }
    }

    /// Calls `method` and waits for its reply, which the caller unrefs. For clients
    /// (progressctl, tests) only: the daemon never waits for another peer on its main loop.
    public static func callAndWait(
        _ connection: OpaquePointer, destination: String, path: String, interface: String, method: String,
        _ parameters: OpaquePointer?, replyType: String? = nil, timeoutMilliseconds: Int32 = -1, autoStart: Bool = false
    ) throws(BusError) -> OpaquePointer {
        var error: UnsafeMutablePointer<GError>?
        let type = replyType.map { $0.withCString { g_variant_type_new($0) } } ?? nil
        defer { if let type { g_variant_type_free(type) } }
        guard let reply = g_dbus_connection_call_sync(
            connection, destination, path, interface, method, parameters, type, flags(autoStart), timeoutMilliseconds,
            nil, &error)
        else { throw BusError(consuming: error) }
        return reply
    }

    /// Opens a connection to the message bus at `address` without blocking: authenticating
    /// and Hello on a bus that hangs must not stall the loop. `done` owns the connection.
    public static func connect(to address: String, done: @escaping (Result<OpaquePointer, BusError>) -> Void) {
        let flags = GDBusConnectionFlags(
            rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        let box = Unmanaged.passRetained(ConnectBox(done)).toOpaque()
        g_dbus_connection_new_for_address(address, flags, nil, nil, { _, result, box in
            assertOnMainLoop()
            let done = Unmanaged<ConnectBox>.fromOpaque(box!).takeRetainedValue().done
            var error: UnsafeMutablePointer<GError>?
            let connection = g_dbus_connection_new_for_address_finish(result, &error)
            done(connection.map { .success($0) } ?? .failure(BusError(consuming: error)))
        }, box)
    }

    private static func flags(_ autoStart: Bool) -> GDBusCallFlags {
        autoStart ? G_DBUS_CALL_FLAGS_NONE : G_DBUS_CALL_FLAGS_NO_AUTO_START
    }

    private final class ConnectBox {
        let done: (Result<OpaquePointer, BusError>) -> Void
        init(_ done: @escaping (Result<OpaquePointer, BusError>) -> Void) { self.done = done }
    }

    private final class ReplyBox {
        let done: (Result<OpaquePointer, BusError>) -> Void
        let cancellable: BusCancellable?
        init(_ done: @escaping (Result<OpaquePointer, BusError>) -> Void, _ cancellable: BusCancellable?) {
            self.done = done
            self.cancellable = cancellable
        }
    }
}

/// Cancels the calls made with it at once, such as every call to a service that left the
/// bus: their closures never run. One cancellable serves any number of calls; once
/// cancelled it stays so, and calls made with it after are dropped as they end.
public final class BusCancellable {
    let gCancellable: UnsafeMutablePointer<GCancellable>

    public init() { gCancellable = g_cancellable_new() }

    deinit { g_object_unref(UnsafeMutableRawPointer(gCancellable)) }

    public func cancel() { g_cancellable_cancel(gCancellable) }

    public var isCancelled: Bool { g_cancellable_is_cancelled(gCancellable) != 0 }
}
