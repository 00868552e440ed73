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
            precondition(
                handlers.updateValue(row.handler, forKey: row.name) == nil, "\(interface).\(row.name) has two rows")
        }
        self.handlers = handlers
    }

    public subscript(method: String) -> Handler? { handlers[method] }

    public var methodNames: Set<String> { Set(handlers.keys) }

    /// Compares the rows with the methods `info` declares.
    public func check(against info: UnsafeMutablePointer<GDBusInterfaceInfo>) throws(DaemonError) {
        try InterfaceMembers.compare(
            "method table", of: interface, declared: InterfaceMembers.names(info.pointee.methods) { $0.pointee.name },
            rows: methodNames, missing: "declared but without a handler", extra: "handled but not declared")
    }

    /// The handlers by the method infos of `info` (which must outlive the dispatch): GDBus
    /// hands each call its method's info, so ExportedInterface finds a call's handler by
    /// one pointer comparison a row, with no string made or hashed.
    func dispatch(for info: UnsafeMutablePointer<GDBusInterfaceInfo>) -> MethodDispatch<Handler> {
        var rows: [(method: UnsafeRawPointer, handler: Handler)] = []
        var index = 0
        while let method = info.pointee.methods?[index] {
            if let name = method.pointee.name, let handler = handlers[String(cString: name)] {
                rows.append((UnsafeRawPointer(method), handler))
            }
            index += 1
        }
        return MethodDispatch(rows: rows)
    }

    /// The same check against the interface of that name in `xml`.
    public func check(againstXML xml: String) throws(DaemonError) {
        try InterfaceMembers.withInterface(interface, in: xml, check(against:))
    }
}

/// A MethodTable's handlers by the address of their GDBusMethodInfo.
struct MethodDispatch<Handler> {
    /// The methods' addresses and, in the same order, their handlers: a call is found by
    /// its method's address alone.
    let methods: [UnsafeRawPointer]
    let handlers: [Handler]

    init(rows: [(method: UnsafeRawPointer, handler: Handler)]) {
        methods = rows.map(\.method)
        handlers = rows.map(\.handler)
    }

    /// The handlers in the order of `methods`, for a caller that keeps them in a type of its
    /// own (ExportedInterface's rows).
    var handlersInOrder: [Handler] { handlers }
}

/// What MethodTable and SignalTable share: the names an interface's XML declares, and the
/// comparison both ways that names what is on one side only.
enum InterfaceMembers {
    /// The names in one of GDBusInterfaceInfo's NULL-terminated arrays.
    static func names<Info>(
        _ infos: UnsafeMutablePointer<UnsafeMutablePointer<Info>?>?,
        _ name: (UnsafeMutablePointer<Info>) -> UnsafeMutablePointer<gchar>?
    ) -> Set<String> {
        var names = Set<String>()
        var index = 0
        while let info = infos?[index] {
            if let text = name(info) { names.insert(String(cString: text)) }
            index += 1
        }
        return names
    }

    /// Runs `check` on the interface of that name in `xml`, which lives as long as the check.
    static func withInterface(
        _ interface: String, in xml: String,
        _ check: (UnsafeMutablePointer<GDBusInterfaceInfo>) throws(DaemonError) -> Void
    ) throws(DaemonError) {
        let descriptions = try InterfaceDescriptions(xml: xml, what: "the interface XML")
        defer { withExtendedLifetime(descriptions) {} }
        try check(descriptions.interface(interface))
    }

    static func compare(
        _ table: String, of interface: String, declared: Set<String>, rows: Set<String>, missing: String, extra: String
    ) throws(DaemonError) {
        let absent = declared.subtracting(rows).sorted()
        let undeclared = rows.subtracting(declared).sorted()
        var problems: [String] = []
        if !absent.isEmpty { problems.append("\(missing): \(absent.joined(separator: ", "))") }
        if !undeclared.isEmpty { problems.append("\(extra): \(undeclared.joined(separator: ", "))") }
        if !problems.isEmpty {
            throw DaemonError(
                "the \(table) of \(interface) does not match its XML: \(problems.joined(separator: "; "))")
        }
    }
}
extension MethodTable: Sendable where Handler: Sendable {}
