import CGLib
import ProgressBus
import Foundation

/// The AT-SPI interfaces progressd serves (org.a11y.atspi.xml, embedded in the module),
/// parsed once. GDBus checks every incoming call against them, so a wrong signature is
/// refused with InvalidArgs before any of our code runs.
public final class AtspiInterfaces {
    /// The XML as shipped, for tests that compare it with what the bus introspects.
    public static var xml: String { String(decoding: PackageResources.org_a11y_atspi_xml, as: UTF8.self) }

    public static let accessible = "org.a11y.atspi.Accessible"
    public static let application = "org.a11y.atspi.Application"
    public static let value = "org.a11y.atspi.Value"
    public static let component = "org.a11y.atspi.Component"
    public static let cacheName = "org.a11y.atspi.Cache"

    private let node: UnsafeMutablePointer<GDBusNodeInfo>
    /// What the root serves, and what each bar serves, in GetInterfaces order.
    let root: [UnsafeMutablePointer<GDBusInterfaceInfo>]
    let bar: [UnsafeMutablePointer<GDBusInterfaceInfo>]
    let cache: UnsafeMutablePointer<GDBusInterfaceInfo>

    init() throws(AccessibilityError) {
        var error: UnsafeMutablePointer<GError>?
        guard let node = g_dbus_node_info_new_for_xml(Self.xml, &error) else {
            throw AccessibilityError("the embedded AT-SPI XML does not parse: \(AtspiCalls.message(error))")
        }
        func lookup(_ name: String) throws(AccessibilityError) -> UnsafeMutablePointer<GDBusInterfaceInfo> {
            guard let info = g_dbus_node_info_lookup_interface(node, name) else {
                throw AccessibilityError("the embedded AT-SPI XML lacks \(name)")
            }
            g_dbus_interface_info_cache_build(info)
            return info
        }
        self.node = node
        root = [try lookup(Self.accessible), try lookup(Self.application)]
        bar = [try lookup(Self.accessible), try lookup(Self.value), try lookup(Self.component)]
        cache = try lookup(Self.cacheName)
    }

    deinit { g_dbus_node_info_unref(node) }
}
