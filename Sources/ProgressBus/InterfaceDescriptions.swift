import CGLib

/// An embedded interface XML, parsed once, and its interfaces looked up by name: what an
/// object is registered with, so that GDBus checks every incoming call's signature against
/// it before our code runs. `what` names the XML in errors ("the KDE job view XML").
public final class InterfaceDescriptions {
    private let node: UnsafeMutablePointer<GDBusNodeInfo>
    private let what: String

    public init(xml: String, what: String) throws(DaemonError) {
        var error: UnsafeMutablePointer<GError>?
        guard let node = g_dbus_node_info_new_for_xml(xml, &error) else {
            throw DaemonError("\(what) does not parse: \(consumeMessage(error))")
        }
        self.node = node
        self.what = what
    }

    deinit { g_dbus_node_info_unref(node) }

    /// The interface of that name, with its lookup cache built (GDBus looks up each call's
    /// method and property in it). It lives as long as this object.
    public func interface(_ name: String) throws(DaemonError) -> UnsafeMutablePointer<GDBusInterfaceInfo> {
        guard let info = g_dbus_node_info_lookup_interface(node, name) else {
            throw DaemonError("\(what) lacks \(name)")
        }
        g_dbus_interface_info_cache_build(info)
        return info
    }
}

/// The NULL-terminated, g_malloc'd arrays a GDBus subtree's callbacks return, which GDBus frees.
enum GDBusArrays {
    /// g_strdup'd strings.
    static func strings(_ strings: [String]) -> UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>? {
        let array = g_malloc0(gsize(MemoryLayout<UnsafeMutablePointer<gchar>?>.stride * (strings.count + 1)))!
            .bindMemory(to: UnsafeMutablePointer<gchar>?.self, capacity: strings.count + 1)
        for (index, string) in strings.enumerated() { array[index] = g_strdup(string) }
        return array
    }

    /// Referenced interface infos.
    static func interfaces(
        _ infos: [UnsafeMutablePointer<GDBusInterfaceInfo>]
    ) -> UnsafeMutablePointer<UnsafeMutablePointer<GDBusInterfaceInfo>?>? {
        let array = g_malloc0(
            gsize(MemoryLayout<UnsafeMutablePointer<GDBusInterfaceInfo>?>.stride * (infos.count + 1)))!
            .bindMemory(to: UnsafeMutablePointer<GDBusInterfaceInfo>?.self, capacity: infos.count + 1)
        for (index, info) in infos.enumerated() { array[index] = g_dbus_interface_info_ref(info) }
        return array
    }
}
