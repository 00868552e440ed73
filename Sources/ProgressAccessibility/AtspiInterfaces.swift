import CGLib
import ProgressBus
import FoundationEssentials

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
    /// The events progressd sends; no object serves this interface.
    public static let objectEvents = SignalTable(
        interface: "org.a11y.atspi.Event.Object", ["PropertyChange", "StateChanged", "ChildrenChanged", "Announcement"])
    static let propertyChange = objectEvents["PropertyChange"]
    static let stateChanged = objectEvents["StateChanged"]
    static let childrenChanged = objectEvents["ChildrenChanged"]
    static let announcement = objectEvents["Announcement"]

    private let descriptions: InterfaceDescriptions
    let cache: UnsafeMutablePointer<GDBusInterfaceInfo>

    init() throws(AccessibilityError) {
        do throws(DaemonError) {
            descriptions = try InterfaceDescriptions(xml: Self.xml, what: "the embedded AT-SPI XML")
            cache = try descriptions.interface(Self.cacheName)
            try Self.objectEvents.check(against: descriptions.interface(Self.objectEvents.interface))
        } catch {
            throw AccessibilityError(error.description)
        }
    }

    /// One of the served interfaces by name.
    func interface(_ name: String) throws(DaemonError) -> UnsafeMutablePointer<GDBusInterfaceInfo> {
        try descriptions.interface(name)
    }
}
