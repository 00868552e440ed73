import CGLib

/// Which of an interface's properties a PropertyTable's rows must equal.
public enum PropertyAccess: Sendable {
    case read
    case write

    var flag: UInt32 {
        switch self {
        case .read: G_DBUS_PROPERTY_INFO_FLAGS_READABLE.rawValue
        case .write: G_DBUS_PROPERTY_INFO_FLAGS_WRITABLE.rawValue
        }
    }
}

/// The properties of one D-Bus interface, one row each: a name and its getter (or its
/// setter). Like MethodTable, it is checked against the interface's XML both ways when the
/// object is exported: every readable property has a getter and every getter a readable
/// property (every writable one a setter, for a table of setters), or the export is refused
/// with a message naming the difference.
public struct PropertyTable<Accessor> {
    public let interface: String
    public let access: PropertyAccess
    let rows: [(name: String, accessor: Accessor)]

    public init(interface: String, access: PropertyAccess = .read, _ rows: [(name: String, accessor: Accessor)]) {
        precondition(Set(rows.map(\.name)).count == rows.count, "\(interface) has a property with two rows")
        self.interface = interface
        self.access = access
        self.rows = rows
    }

    /// A table with no rows: for an interface without properties (of that access).
    public static func none(_ interface: String, access: PropertyAccess = .read) -> PropertyTable {
        PropertyTable(interface: interface, access: access, [])
    }

    public var names: Set<String> { Set(rows.map(\.name)) }

    public subscript(name: String) -> Accessor? { rows.first { $0.name == name }?.accessor }

    /// Compares the rows with the properties of this access that `info` declares.
    public func check(against info: UnsafeMutablePointer<GDBusInterfaceInfo>) throws(DaemonError) {
        try InterfaceMembers.compare(
            access == .read ? "property getters" : "property setters", of: interface,
            declared: Self.declared(access, in: info), rows: names,
            missing: access == .read ? "readable but without a getter" : "writable but without a setter",
            extra: access == .read ? "a getter but not a readable property" : "a setter but not a writable property")
    }

    /// The same check against the interface of that name in `xml`.
    public func check(againstXML xml: String) throws(DaemonError) {
        try InterfaceMembers.withInterface(interface, in: xml, check(against:))
    }

    /// The names of the properties `info` declares with that access, in its order.
    static func declaredInOrder(
        _ access: PropertyAccess, in info: UnsafeMutablePointer<GDBusInterfaceInfo>
    ) -> [String] {
        var names: [String] = []
        var index = 0
        while let property = info.pointee.properties?[index] {
            if property.pointee.flags.rawValue & access.flag != 0, let name = property.pointee.name {
                names.append(String(cString: name))
            }
            index += 1
        }
        return names
    }

    static func declared(_ access: PropertyAccess, in info: UnsafeMutablePointer<GDBusInterfaceInfo>) -> Set<String> {
        Set(declaredInOrder(access, in: info))
    }
}
extension PropertyTable: Sendable where Accessor: Sendable {}
