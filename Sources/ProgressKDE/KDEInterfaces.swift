import CGLib
import ProgressBus
import ProgressCore

/// The names of the KDE job view protocol, and its interfaces parsed from the embedded XML
/// (KDE's own, see org.kde.JobViews.xml), which GDBus checks every incoming call against.
public final class KDEInterfaces {
    public static let serverName = "org.kde.JobViewServer"
    public static let kuiserverName = "org.kde.kuiserver"
    public static let serverPath = "/JobViewServer"
    public static let serverInterface = "org.kde.JobViewServer"
    public static let serverV2Interface = "org.kde.JobViewServerV2"
    public static let kuiserverInterface = "org.kde.kuiserver"
    public static let viewV2Interface = "org.kde.JobViewV2"
    public static let viewV3Interface = "org.kde.JobViewV3"
    /// Where progressd's views live: one object per job, `JobView_<n>`.
    public static let viewsPath = "/org/progressd/kde"
    /// The namespace of the tasks the KDE input makes: `kde/<desktop entry>/<n>`. The
    /// forwarder never sends a task from it back to a JobViewServer.
    public static let taskPrefix = "kde/"
    /// The origin of a view's commands: the client that requested the view, so that its
    /// jobs pass the same access rules and caps as its Progress1 calls would.
    public static func inputOrigin(for client: ClientID) -> ChangeOrigin { .bridge("kde", client) }
    /// The input's own tidying (views a restart or a new server left behind).
    public static let daemonOrigin = ChangeOrigin.daemon("kde")
    /// Requests the user made in Plasma on a forwarded task.
    public static let forwarderOrigin = ChangeOrigin.daemon("kde-forwarder")

    public static let xml = String(decoding: PackageResources.org_kde_JobViews_xml, as: UTF8.self)

    private let descriptions: InterfaceDescriptions
    let server: UnsafeMutablePointer<GDBusInterfaceInfo>
    let serverV2: UnsafeMutablePointer<GDBusInterfaceInfo>
    let kuiserver: UnsafeMutablePointer<GDBusInterfaceInfo>
    let viewV2: UnsafeMutablePointer<GDBusInterfaceInfo>
    let viewV3: UnsafeMutablePointer<GDBusInterfaceInfo>

    public init() throws(DaemonError) {
        descriptions = try InterfaceDescriptions(xml: Self.xml, what: "the embedded KDE job view XML")
        server = try descriptions.interface(Self.serverInterface)
        serverV2 = try descriptions.interface(Self.serverV2Interface)
        kuiserver = try descriptions.interface(Self.kuiserverInterface)
        viewV2 = try descriptions.interface(Self.viewV2Interface)
        viewV3 = try descriptions.interface(Self.viewV3Interface)
    }

    public static func isKDETask(_ name: TaskName) -> Bool { name.text.hasPrefix(taskPrefix) }

    public static func viewPath(_ number: UInt64) -> String { "\(viewsPath)/JobView_\(number)" }

    /// A desktop entry or application name as one element of a task name: what a path
    /// separator or control character would break is replaced, and the length is bounded.
    public static func nameElement(_ text: String) -> String {
        let cleaned = String(text.unicodeScalars.map { $0 == "/" || $0.properties.isWhitespace || $0.value < 0x20 ? "_" : Character($0) })
        let element = JobViewState.truncated(cleaned.hasSuffix(".desktop") ? String(cleaned.dropLast(8)) : cleaned, to: 100)
        return element.isEmpty ? "unknown" : element
    }
}

/// An asynchronous method call to another peer, with a Swift closure for the reply: the
/// daemon never blocks its main loop on a peer that may be slow or gone.
enum AsyncBusCall {
    /// Calls `method`; `done` gets the reply tuple (borrowed for the call) or the error text.
    static func call(
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
    static func send(
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

    struct CallFailure: Error { let message: String }

    private final class ReplyBox {
        let done: (Result<OpaquePointer, CallFailure>) -> Void
        let replyType: String?
        init(_ done: @escaping (Result<OpaquePointer, CallFailure>) -> Void, replyType: String?) {
            self.done = done
            self.replyType = replyType
        }
    }
}
