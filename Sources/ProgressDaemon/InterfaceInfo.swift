import CGLib
import ProgressBus

/// The Progress1 interfaces the daemon registers its objects with, from the embedded
/// `dbus/org.progressd.Progress1.xml`.
final class InterfaceInfo {
    private let descriptions: InterfaceDescriptions
    let manager: UnsafeMutablePointer<GDBusInterfaceInfo>
    let task: UnsafeMutablePointer<GDBusInterfaceInfo>
    let objectManager: UnsafeMutablePointer<GDBusInterfaceInfo>
    let subscription: UnsafeMutablePointer<GDBusInterfaceInfo>

    init(xml: String = BusNames.introspectionXML) throws(DaemonError) {
        descriptions = try InterfaceDescriptions(xml: xml, what: "the embedded interface XML")
        manager = try descriptions.interface(BusNames.managerInterface)
        task = try descriptions.interface(BusNames.taskInterface)
        objectManager = try descriptions.interface(BusNames.objectManagerInterface)
        subscription = try descriptions.interface(BusNames.subscriptionInterface)
    }

    /// Any interface of the XML by name.
    func interface(_ name: String) throws(DaemonError) -> UnsafeMutablePointer<GDBusInterfaceInfo> {
        try descriptions.interface(name)
    }
}
