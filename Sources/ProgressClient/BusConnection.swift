import CGLib
import ProgressBus

/// An error reply, or a failure to reach the bus: the glue kit's error, under the name
/// clients have used.
public typealias BusCallError = BusError

/// A signal as a client receives it.
public struct BusSignal: Sendable {
    public let sender: String
    public let path: String
    public let interface: String
    public let member: String
    public let arguments: [BusValue]
}

/// A client connection to a message bus, by address, so that tests reach their private bus
/// (`g_bus_get_sync` would cache the first session bus it saw). Signals are delivered
/// while the owner of the connection pumps the default main context.
public final class BusConnection {
    private let connection: OpaquePointer
    private var handlers: [SignalHandler] = []

    public init(address: String) throws(BusCallError) {
        var error: UnsafeMutablePointer<GError>?
        let flags = GDBusConnectionFlags(
            rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        guard let connection = g_dbus_connection_new_for_address_sync(address, flags, nil, nil, &error) else {
            throw BusCallError(consuming: error)
        }
        g_dbus_connection_set_exit_on_close(connection, 0)
        self.connection = connection
    }

    /// The user's session bus.
    public static func session() throws(BusCallError) -> BusConnection {
        guard let address = g_getenv("DBUS_SESSION_BUS_ADDRESS").map({ String(cString: $0) }), !address.isEmpty else {
            throw BusCallError(name: "", message: "DBUS_SESSION_BUS_ADDRESS is not set: no session bus")
        }
        return try BusConnection(address: address)
    }

    deinit {
        for handler in handlers { g_dbus_connection_signal_unsubscribe(connection, handler.id) }
        g_dbus_connection_close_sync(connection, nil, nil)
        g_object_unref(UnsafeMutableRawPointer(connection))
    }

    /// This connection's unique name on the bus, such as ":1.42".
    public var uniqueName: String { String(cString: g_dbus_connection_get_unique_name(connection)) }

    public var isClosed: Bool { g_dbus_connection_is_closed(connection) != 0 }

    /// Calls a method and waits for its reply.
    @discardableResult
    public func call(
        _ destination: String, _ path: String, _ interface: String, _ method: String,
        _ arguments: [BusValue] = [], timeoutMilliseconds: Int32 = 25_000, autoStart: Bool = false
    ) throws(BusCallError) -> [BusValue] {
        // Tests must never start an installed service behind their backs; clients may.
        let reply = try BusCall.callAndWait(
            connection, destination: destination, path: path, interface: interface, method: method,
            BusValue.tuple(arguments).gVariant(), timeoutMilliseconds: timeoutMilliseconds, autoStart: autoStart)
        defer { g_variant_unref(reply) }
        return BusValue.children(reply)
    }

    /// Calls a method without waiting: `completion` runs on this thread's main context when
    /// the reply, an error or the timeout comes, so a service can serve others meanwhile.
    public func callAsync(
        _ destination: String, _ path: String, _ interface: String, _ method: String,
        _ arguments: [BusValue] = [], timeoutMilliseconds: Int32 = 25_000, autoStart: Bool = false,
        _ completion: @escaping (Result<[BusValue], BusCallError>) -> Void
    ) {
        // The closure keeps this connection alive until the reply is in.
        BusCall.call(
            connection, destination: destination, path: path, interface: interface, method: method,
            BusValue.tuple(arguments).gVariant(), replyType: nil, timeoutMilliseconds: timeoutMilliseconds,
            autoStart: autoStart
        ) { [self] result in
            withExtendedLifetime(self) { completion(result.map { BusValue.children($0) }) }
        }
    }

    /// Sends every call at once and waits for all the replies (pumping the main context),
    /// in the order sent: many calls in flight, as a busy client makes them.
    public func callAll(
        _ destination: String, _ path: String, _ interface: String, _ method: String, _ argumentLists: [[BusValue]],
        timeoutMilliseconds: Int32 = 25_000
    ) -> [Result<[BusValue], BusCallError>] {
        var results = [Result<[BusValue], BusCallError>?](repeating: nil, count: argumentLists.count)
        var done = 0
        for (index, arguments) in argumentLists.enumerated() {
            BusCall.call(
                connection, destination: destination, path: path, interface: interface, method: method,
                BusValue.tuple(arguments).gVariant(), replyType: nil, timeoutMilliseconds: timeoutMilliseconds
            ) { result in
                results[index] = result.map { BusValue.children($0) }
                done += 1
            }
        }
        Self.pump(seconds: Double(timeoutMilliseconds) / 1000 + 1) { done == argumentLists.count }
        return results.map { $0 ?? .failure(BusCallError(name: "", message: "no reply")) }
    }

    /// Sends a call that expects no reply (the daemon still runs it).
    public func send(
        _ destination: String, _ path: String, _ interface: String, _ method: String, _ arguments: [BusValue]
    ) {
        BusCall.send(
            connection, destination: destination, path: path, interface: interface, method: method,
            BusValue.tuple(arguments).gVariant())
    }

    /// Broadcasts a signal from this connection (a fake LauncherEntry sender in tests).
    public func emit(path: String, interface: String, member: String, _ arguments: [BusValue]) throws(BusCallError) {
        var error: UnsafeMutablePointer<GError>?
        if g_dbus_connection_emit_signal(
            connection, nil, path, interface, member, BusValue.tuple(arguments).gVariant(), &error) == 0 {
            throw BusCallError(consuming: error)
        }
    }

    /// Waits until everything sent so far has been written to the bus.
    public func flush() { g_dbus_connection_flush_sync(connection, nil, nil) }

    /// Calls `handler` for each matching signal (nil matches anything) while the main context is pumped.
    public func subscribe(
        sender: String? = nil, interface: String? = nil, member: String? = nil, path: String? = nil,
        _ handler: @escaping (BusSignal) -> Void
    ) {
        let box = SignalHandler(handler)
        box.id = g_dbus_connection_signal_subscribe(
            connection, sender, interface, member, path, nil, G_DBUS_SIGNAL_FLAGS_NONE,
            { _, sender, path, interface, member, parameters, userData in
                let box = Unmanaged<SignalHandler>.fromOpaque(userData!).takeUnretainedValue()
                box.handler(BusSignal(
                    sender: sender.map { String(cString: $0) } ?? "", path: String(cString: path!),
                    interface: String(cString: interface!), member: String(cString: member!),
                    arguments: BusValue.children(parameters!)))
            },
            Unmanaged.passUnretained(box).toOpaque(), nil)
        handlers.append(box)
    }

    /// Dispatches signals until `condition` holds or `seconds` pass; returns the condition.
    @discardableResult
    public static func pump(seconds: Double, wakeMilliseconds: UInt32 = 10, until condition: () -> Bool) -> Bool {
        let deadline = g_get_monotonic_time() + gint64(seconds * 1_000_000)
        drain()  // what already arrived counts, whatever the condition says now
        while !condition() {
            if g_get_monotonic_time() >= deadline { return condition() }
            // A short timer bounds each blocking iteration, so the deadline is honoured.
            let wake = g_timeout_source_new(wakeMilliseconds)!
            g_source_set_callback(wake, { _ in 0 }, nil, nil)
            g_source_attach(wake, nil)
            g_main_context_iteration(nil, 1)
            g_source_destroy(wake)
            g_source_unref(wake)
        }
        return true
    }

    /// Dispatches whatever has already arrived, without waiting.
    public static func drain() {
        while g_main_context_iteration(nil, 0) != 0 {}
    }
}

private final class SignalHandler {
    let handler: (BusSignal) -> Void
    var id: UInt32 = 0
    init(_ handler: @escaping (BusSignal) -> Void) { self.handler = handler }
}
