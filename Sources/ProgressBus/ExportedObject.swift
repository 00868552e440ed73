import CGLib

/// One object on the bus: its interfaces registered at one path, for as long as this
/// lives or until `end()`. The one place, with ExportedSubtree, that registers objects
/// with GDBus: every interface goes through ExportedInterface, whose tables were checked
/// against the XML.
public final class ExportedObject {
    public let path: String
    private let connection: OpaquePointer
    private var registrations: [UInt32] = []
    private var ended = false
    /// GDBus holds them by unretained pointers: they live as long as their registrations.
    private let interfaces: [ExportedInterface]

    /// Registers every interface at `path`; throws, with nothing left registered, when
    /// GDBus refuses one (the path already serves that interface).
    public init(on connection: OpaquePointer, path: String, _ interfaces: [ExportedInterface]) throws(DaemonError) {
        self.connection = connection
        self.path = path
        self.interfaces = interfaces
        g_object_ref(UnsafeMutableRawPointer(connection))
        for interface in interfaces {
            var error: UnsafeMutablePointer<GError>?
            let id = g_dbus_connection_register_object(
                connection, path, interface.info, ExportedInterface.vtable,
                Unmanaged.passUnretained(interface).toOpaque(), nil, &error)
            guard id != 0 else {
                end()
                throw DaemonError("could not export \(interface.name) at \(path): \(consumeMessage(error))")
            }
            registrations.append(id)
        }
    }

    deinit { end() }

    /// Withdraws the object; calls GDBus has not dispatched yet are refused by GDBus.
    public func end() {
        guard !ended else { return }
        ended = true
        for id in registrations { g_dbus_connection_unregister_object(connection, id) }
        registrations.removeAll()
        g_object_unref(UnsafeMutableRawPointer(connection))
    }
}

/// Any number of objects under one path, served without a registration each: which nodes
/// exist and which of the subtree's interfaces each serves are asked when a call or an
/// introspection comes. Every interface a node may serve is given up front, checked.
public final class ExportedSubtree {
    public let path: String
    private let connection: OpaquePointer
    private var registration: UInt32 = 0
    private let interfaces: [ExportedInterface]
    private let nodes: () -> [String]
    private let serves: (String) -> [ExportedInterface]?

    /// `nodes` lists the children (for introspection of `path`); `serves` names what the
    /// child `node` serves, nil when it names nothing. With `dispatchToUnlisted`, a child
    /// that is not listed still gets its calls when `serves` gives it interfaces, so that
    /// existence can be decided in the call, in the caller's turn.
    public init(
        on connection: OpaquePointer, path: String, interfaces: [ExportedInterface], dispatchToUnlisted: Bool,
        nodes: @escaping () -> [String], serves: @escaping (_ node: String) -> [ExportedInterface]?
    ) throws(DaemonError) {
        self.connection = connection
        self.path = path
        self.interfaces = interfaces
        self.nodes = nodes
        self.serves = serves
        var error: UnsafeMutablePointer<GError>?
        let flags = dispatchToUnlisted ? G_DBUS_SUBTREE_FLAGS_DISPATCH_TO_UNENUMERATED_NODES : G_DBUS_SUBTREE_FLAGS_NONE
        registration = g_dbus_connection_register_subtree(
            connection, path, Self.vtable, flags, Unmanaged.passUnretained(self).toOpaque(), nil, &error)
        guard registration != 0 else {
            throw DaemonError("could not export the objects under \(path): \(consumeMessage(error))")
        }
        g_object_ref(UnsafeMutableRawPointer(connection))
    }

    deinit { end() }

    public func end() {
        guard registration != 0 else { return }
        g_dbus_connection_unregister_subtree(connection, registration)
        registration = 0
        g_object_unref(UnsafeMutableRawPointer(connection))
    }

    /// One of the subtree's own interfaces only: GDBus keeps the pointer it dispatches to.
    private func interface(named name: UnsafePointer<CChar>, atNode node: String) -> ExportedInterface? {
        let wanted = String(cString: name)
        guard let served = serves(node)?.first(where: { $0.name == wanted }) else { return nil }
        precondition(
            interfaces.contains { $0 === served }, "\(path)/\(node) serves \(wanted), which its subtree was not given")
        return served
    }

    private static func from(_ userData: gpointer?) -> ExportedSubtree {
        Unmanaged<ExportedSubtree>.fromOpaque(userData!).takeUnretainedValue()
    }

    /// Written once, then only read, on the main loop.
    nonisolated(unsafe) private static let vtable: UnsafeMutablePointer<GDBusSubtreeVTable> = {
        let vtable = UnsafeMutablePointer<GDBusSubtreeVTable>.allocate(capacity: 1)
        vtable.initialize(to: GDBusSubtreeVTable(
            enumerate: { _, _, _, userData in
                assertOnMainLoop()
                return GDBusArrays.strings(ExportedSubtree.from(userData).nodes())
            },
            introspect: { _, _, _, node, userData in
                assertOnMainLoop()
                // The subtree's root itself serves nothing; it lists the children.
                guard let node else { return GDBusArrays.interfaces([]) }
                guard let served = ExportedSubtree.from(userData).serves(String(cString: node)) else { return nil }
                return GDBusArrays.interfaces(served.map(\.info))
            },
            dispatch: { _, _, _, interface, node, outUserData, userData in
                assertOnMainLoop()
                guard let node, let interface,
                      let served = ExportedSubtree.from(userData).interface(
                          named: interface, atNode: String(cString: node))
                else { return nil }
                outUserData?.pointee = Unmanaged.passUnretained(served).toOpaque()
                return UnsafePointer(ExportedInterface.vtable)
            },
            padding: (nil, nil, nil, nil, nil, nil, nil, nil)))
        return vtable
    }()
}
