import CGLib
import ProgressBus
import ProgressModel

/// The GDBus side of progress-render's service: org.progressd.Renderer1.Render. The drawing
/// itself is a closure the executable gives, so that this module stays the only one that
/// touches GLib and knows nothing of cairo.
public final class RendererService {
    public static let busName = "org.progressd.Renderer1"
    public static let path = "/org/progressd/Renderer1"
    public static let interface = "org.progressd.Renderer1"
    public static let errorPrefix = "org.progressd.Renderer1.Error."
    public static let introspectionXML = String(decoding: PackageResources.org_progressd_Renderer1_xml, as: UTF8.self)

    /// A refusal: the last part of the error name ("InvalidSpec") and the message.
    public struct Refusal: Error {
        public let name: String
        public let message: String
        public init(_ name: String, _ message: String) {
            self.name = name
            self.message = message
        }
    }

    public typealias Rendered = (image: [UInt8], info: [(String, PropertyValue)])
    /// Draws for the options and calls back on the main loop, at once or after waiting for
    /// progressd without blocking: requests are served one at a time only while drawing.
    public typealias Render = (
        [(key: String, value: OptionValue)], @escaping (Result<Rendered, Refusal>) -> Void
    ) -> Void

    private let render: Render
    /// Every key a Render request may hold: a request with more entries is refused unread.
    private let acceptedKeys: [String]
    private let descriptions: InterfaceDescriptions
    private var object: ExportedObject?

    public init(acceptedKeys: [String], render: @escaping Render) throws(DaemonError) {
        self.render = render
        self.acceptedKeys = acceptedKeys
        descriptions = try InterfaceDescriptions(xml: Self.introspectionXML, what: "the embedded renderer XML")
    }

    /// Render, the one method: a MethodTable row like every incoming call.
    static let methods = MethodTable<@Sendable (RendererService, MethodCall) -> Void>(interface: interface, [
        ("Render", { $0.handle($1) }),
    ])

    public func register(on connection: OpaquePointer) throws(DaemonError) {
        let exported = try ExportedInterface(
            descriptions.interface(Self.interface), keeping: descriptions,
            methods: Self.methods.map { handler in { [unowned self] call in handler(self, call.methodCall()) } })
        object = try ExportedObject(on: connection, path: Self.path, [exported])
    }

    public func unregister(from connection: OpaquePointer) {
        object?.end()
        object = nil
    }

    /// GDBus keeps the invocation until it is answered, so a request waiting for progressd
    /// is answered from the callback.
    private func handle(_ call: MethodCall) {
        let options: [(key: String, value: OptionValue)]
        do throws(ProgressError) {
            options = try call.options(0, for: "Render", accepting: acceptedKeys)
        } catch {
            return call.fail(Self.errorPrefix + "InvalidSpec", error.message)
        }
        render(options) { outcome in Self.answer(call, outcome) }
    }

    private static func answer(_ call: MethodCall, _ outcome: Result<Rendered, Refusal>) {
        do throws(Refusal) {
            let result = try outcome.get()
            let image = result.image.withUnsafeBytes { bytes in
                "y".withCString {
                    g_variant_new_fixed_array(shim_variant_type($0), bytes.baseAddress, gsize(bytes.count), 1)
                }!
            }
            let info = Variant.container("a{sv}") { builder in
                for (key, value) in result.info { Variant.addEntry(builder, key, Variant.property(value)) }
            }
            call.reply(Variant.tuple([image, info]))
        } catch {
            call.fail(errorPrefix + error.name, error.message)
        }
    }
}
