import CGLib

/// Introspection data read through GDBus's own parser and written back in its canonical
/// form, so that two descriptions compare equal exactly when they describe the same
/// interfaces (comments and formatting aside).
public enum IntrospectionXML {
    public struct Node: Equatable {
        /// Each interface's name mapped to its canonical XML.
        public let interfaces: [String: String]
        /// The names of the child nodes.
        public let children: [String]
    }

    public static func parse(_ xml: String) throws(DaemonError) -> Node {
        var error: UnsafeMutablePointer<GError>?
        guard let node = g_dbus_node_info_new_for_xml(xml, &error) else {
            throw DaemonError("introspection XML does not parse: \(consumeMessage(error))")
        }
        defer { g_dbus_node_info_unref(node) }
        var interfaces: [String: String] = [:]
        var index = 0
        while let interface = node.pointee.interfaces?[index] {
            let text = g_string_new("")!
            g_dbus_interface_info_generate_xml(interface, 0, text)
            interfaces[String(cString: interface.pointee.name)] = String(cString: text.pointee.str)
            g_string_free(text, 1)
            index += 1
        }
        var children: [String] = []
        index = 0
        while let child = node.pointee.nodes?[index] {
            children.append(String(cString: child.pointee.path))
            index += 1
        }
        return Node(interfaces: interfaces, children: children)
    }
}
