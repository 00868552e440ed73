import CGLib
import ProgressBus

/// The parsed interface descriptions the daemon registers its objects with.
/// GDBus checks every incoming call's signature against them before our code runs.
final class InterfaceInfo {
    let node: UnsafeMutablePointer<GDBusNodeInfo>
    let manager: UnsafeMutablePointer<GDBusInterfaceInfo>
    let task: UnsafeMutablePointer<GDBusInterfaceInfo>
    let objectManager: UnsafeMutablePointer<GDBusInterfaceInfo>
    let subscription: UnsafeMutablePointer<GDBusInterfaceInfo>

    init(xml: String = BusNames.introspectionXML) throws(DaemonError) {
        var error: UnsafeMutablePointer<GError>?
        guard let node = g_dbus_node_info_new_for_xml(xml, &error) else {
            throw DaemonError("the embedded interface XML does not parse: \(consumeMessage(error))")
        }
        func lookup(_ name: String) throws(DaemonError) -> UnsafeMutablePointer<GDBusInterfaceInfo> {
            guard let info = g_dbus_node_info_lookup_interface(node, name) else {
                throw DaemonError("the embedded interface XML lacks \(name)")
            }
            return info
        }
        self.node = node
        manager = try lookup(BusNames.managerInterface)
        task = try lookup(BusNames.taskInterface)
        objectManager = try lookup(BusNames.objectManagerInterface)
        subscription = try lookup(BusNames.subscriptionInterface)
        g_dbus_interface_info_cache_build(task)
        g_dbus_interface_info_cache_build(manager)
    }

    deinit { g_dbus_node_info_unref(node) }
}

