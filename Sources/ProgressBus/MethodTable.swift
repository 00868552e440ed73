import CGLib

/// The methods of one D-Bus interface, one row each: a name and its handler. The table is
/// checked against the interface's XML when the object is registered, both ways, so a
/// method the XML declares without a handler, or a handler for a method the XML lacks,
/// stops the service with a message naming it, instead of answering UnknownMethod later.
public struct MethodTable<Handler> {
    public let interface: String
    private let handlers: [String: Handler]

    public init(interface: String, _ rows: [(name: String, handler: Handler)]) {
        self.interface = interface
        var handlers: [String: Handler] = [:]
        for row in rows {
            precondition(handlers.updateValue(row.handler, forKey: row.name) == nil, "\(interface).\(row.name) has two rows")
        }
        self.handlers = handlers
    }

    public subscript(method: String) -> Handler? { handlers[method] }

    public var methodNames: Set<String> { Set(handlers.keys) }

    /// Compares the rows with the methods `info` declares.
    public func check(against info: UnsafeMutablePointer<GDBusInterfaceInfo>) throws(DaemonError) {
        var declared = Set<String>()
        var index = 0
        while let method = info.pointee.methods?[index] {
            declared.insert(String(cString: method.pointee.name))
            index += 1
        }
        let unhandled = declared.subtracting(handlers.keys).sorted()
        let undeclared = methodNames.subtracting(declared).sorted()
        var problems: [String] = []
        if !unhandled.isEmpty { problems.append("declared but without a handler: \(unhandled.joined(separator: ", "))") }
        if !undeclared.isEmpty { problems.append("handled but not declared: \(undeclared.joined(separator: ", "))") }
        if !problems.isEmpty {
            throw DaemonError("the method table of \(interface) does not match its XML: \(problems.joined(separator: "; "))")
        }
    }

    /// The same check against the interface of that name in `xml`.
    public func check(againstXML xml: String) throws(DaemonError) {
        var error: UnsafeMutablePointer<GError>?
        guard let node = g_dbus_node_info_new_for_xml(xml, &error) else {
            throw DaemonError("the interface XML does not parse: \(consumeMessage(error))")
        }
        defer { g_dbus_node_info_unref(node) }
        guard let info = g_dbus_node_info_lookup_interface(node, interface) else {
            throw DaemonError("the interface XML lacks \(interface)")
        }
        try check(against: info)
    }
}
extension MethodTable: Sendable where Handler: Sendable {}
