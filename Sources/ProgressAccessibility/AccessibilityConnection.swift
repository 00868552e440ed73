import CGLib
import ProgressBus
import ProgressCore

/// progressd's own connection to the accessibility bus, and everything on it: the objects
/// under /org/a11y/atspi/accessible (one subtree, so any number of bars costs no
/// registration each), the Cache, the registry's event-listener list, and the Embed that
/// makes the application appear. Dropped whole when the bus goes (`close`).
final class AccessibilityConnection {
    let connection: OpaquePointer
    let objects: AccessibleObjects
    private(set) var events = RegisteredEvents()
    private(set) var isEmbedded = false
    /// Called once when the bus closes the connection under us.
    var onClosed: (() -> Void)?
    /// Called when the registry's listener list changes, and once it is first known.
    var onListenersChanged: (() -> Void)?
    private var isOpen = true
    private var subtree: UInt32 = 0
    private var cache: UInt32 = 0
    private var subscriptions: [UInt32] = []
    private var closedHandler: gulong = 0
    private let info: AtspiInterfaces
    private let objectVTable = UnsafeMutablePointer<GDBusInterfaceVTable>.allocate(capacity: 1)
    private let cacheVTable = UnsafeMutablePointer<GDBusInterfaceVTable>.allocate(capacity: 1)
    private let subtreeVTable = UnsafeMutablePointer<GDBusSubtreeVTable>.allocate(capacity: 1)

    static let registryName = "org.a11y.atspi.Registry"

    /// Takes over a reference to `connection`, exports the objects and embeds.
    init(connection: OpaquePointer, model: AccessibleModel, info: AtspiInterfaces) throws(AccessibilityError) {
        self.connection = connection
        self.info = info
        objects = AccessibleObjects(model: model, busName: String(cString: g_dbus_connection_get_unique_name(connection)))
        objectVTable.initialize(to: GDBusInterfaceVTable(
            method_call: { _, sender, path, interface, method, parameters, invocation, userData in
                assertOnMainLoop()
                AccessibilityConnection.from(userData).objects.call(
                    interface: String(cString: interface!), method: String(cString: method!), MethodCall(
                        sender: ClientID(sender.map { String(cString: $0) } ?? ""), path: String(cString: path!), parameters: parameters!,
                        invocation: invocation!))
            },
            get_property: { _, _, path, interface, property, error, userData in
                assertOnMainLoop()
                let value = AccessibilityConnection.from(userData).objects.property(
                    path: String(cString: path!), interface: String(cString: interface!), property: String(cString: property!))
                if value == nil { shim_set_dbus_error(error, G_DBUS_ERROR_UNKNOWN_OBJECT, "no such object or property") }
                return value
            },
            set_property: { _, _, path, _, property, value, error, userData in
                assertOnMainLoop()
                return AccessibilityConnection.from(userData).objects.setProperty(
                    path: String(cString: path!), property: String(cString: property!), value: value!, error: error) ? 1 : 0
            },
            padding: (nil, nil, nil, nil, nil, nil, nil, nil)))
        cacheVTable.initialize(to: GDBusInterfaceVTable(
            method_call: { _, sender, path, _, _, parameters, invocation, userData in
                assertOnMainLoop()
                AccessibilityConnection.from(userData).objects.cacheItems(MethodCall(
                    sender: ClientID(sender.map { String(cString: $0) } ?? ""), path: String(cString: path!), parameters: parameters!, invocation: invocation!))
            },
            get_property: nil, set_property: nil, padding: (nil, nil, nil, nil, nil, nil, nil, nil)))
        subtreeVTable.initialize(to: GDBusSubtreeVTable(
            enumerate: { _, _, _, userData in
                assertOnMainLoop()
                return GDBusArrays.strings(AccessibilityConnection.from(userData).objects.nodeNames)
            },
            introspect: { _, _, _, node, userData in
                assertOnMainLoop()
                guard let node else { return GDBusArrays.interfaces([]) }
                let owner = AccessibilityConnection.from(userData)
                guard let interfaces = owner.interfaces(atNode: String(cString: node)) else { return nil }
                return GDBusArrays.interfaces(interfaces)
            },
            dispatch: { _, _, _, interface, node, outUserData, userData in
                assertOnMainLoop()
                let owner = AccessibilityConnection.from(userData)
                guard let node, let interface,
                      let interfaces = owner.interfaces(atNode: String(cString: node)),
                      interfaces.contains(where: { String(cString: $0.pointee.name) == String(cString: interface) }) else { return nil }
                outUserData?.pointee = userData
                return UnsafePointer(owner.objectVTable)
            },
            padding: (nil, nil, nil, nil, nil, nil, nil, nil)))
        try register()
    }

    deinit {
        close()
        objectVTable.deallocate()
        cacheVTable.deallocate()
        subtreeVTable.deallocate()
    }

    private var userData: gpointer { Unmanaged.passUnretained(self).toOpaque() }

    private static func from(_ userData: gpointer?) -> AccessibilityConnection {
        Unmanaged<AccessibilityConnection>.fromOpaque(userData!).takeUnretainedValue()
    }

    /// The interfaces a node serves: the root its two, a live bar its three, else none.
    private func interfaces(atNode node: String) -> [UnsafeMutablePointer<GDBusInterfaceInfo>]? {
        if node == "root" { return info.root }
        return objects.hasBar(atNode: node) ? info.bar : nil
    }

    private func register() throws(AccessibilityError) {
        var error: UnsafeMutablePointer<GError>?
        subtree = g_dbus_connection_register_subtree(
            connection, "/org/a11y/atspi/accessible", subtreeVTable, G_DBUS_SUBTREE_FLAGS_DISPATCH_TO_UNENUMERATED_NODES,
            userData, nil, &error)
        guard subtree != 0 else { throw AccessibilityError("could not export the accessible objects: \(consumeMessage(error))") }
        cache = g_dbus_connection_register_object(connection, "/org/a11y/atspi/cache", info.cache, cacheVTable, userData, nil, &error)
        guard cache != 0 else { throw AccessibilityError("could not export the cache: \(consumeMessage(error))") }
        for member in ["EventListenerRegistered", "EventListenerDeregistered"] {
            let box = Unmanaged.passUnretained(self).toOpaque()
            let id = g_dbus_connection_signal_subscribe(
                connection, Self.registryName, "org.a11y.atspi.Registry", member, "/org/a11y/atspi/registry", nil,
                G_DBUS_SIGNAL_FLAGS_NONE,
                { _, _, _, _, member, parameters, userData in
                    assertOnMainLoop()
                    AccessibilityConnection.from(userData).listenerSignal(
                        parameters!, registered: String(cString: member!) == "EventListenerRegistered")
                },
                box, nil)
            subscriptions.append(id)
        }
        let closed: @convention(c) (OpaquePointer?, gboolean, UnsafeMutablePointer<GError>?, gpointer?) -> Void = { _, _, _, userData in
            assertOnMainLoop()
            let owner = AccessibilityConnection.from(userData)
            owner.closedHandler = 0
            owner.onClosed?()
        }
        closedHandler = shim_signal_connect(UnsafeMutableRawPointer(connection), "closed", unsafeBitCast(closed, to: GCallback.self), userData)
        embed()
    }

    /// Socket.Embed: the registry adds us under its root and sets our Id; its reply is
    /// our Parent. Then the listener list, so events nobody wants are not sent.
    private func embed() {
        let argument = Variant.tuple([Variant.reference(objects.busName, AccessibleTree.rootPath)])
        BusCall.call(
            connection, destination: Self.registryName, path: AccessibleTree.rootPath, interface: "org.a11y.atspi.Socket",
            method: "Embed", argument, replyType: "((so))", timeoutMilliseconds: AccessibilityBusWatch.timeoutMilliseconds, autoStart: true
        ) { [weak self] result in
            guard let self, self.isOpen else { return }
            guard case .success(let reply) = result else {
                if case .failure(let failure) = result { Log.warning("the accessibility registry refused Embed: \(failure)") }
                return
            }
            self.objects.registryReference = Variant.withChild(reply, 0) { (Variant.stringChild($0, 0), Variant.stringChild($0, 1)) }
            self.isEmbedded = true
            self.askForListeners()
        }
    }

    private func askForListeners() {
        BusCall.call(
            connection, destination: Self.registryName, path: "/org/a11y/atspi/registry", interface: "org.a11y.atspi.Registry",
            method: "GetRegisteredEvents", replyType: "(a(ss))", timeoutMilliseconds: AccessibilityBusWatch.timeoutMilliseconds, autoStart: true
        ) { [weak self] result in
            guard let self, self.isOpen else { return }
            guard case .success(let reply) = result else {
                if case .failure(let failure) = result { Log.warning("the accessibility registry did not list its listeners: \(failure)") }
                return
            }
            let pairs = Variant.withChild(reply, 0) { list in
                Variant.mapChildren(list) { (listener: Variant.stringChild($0, 0), event: Variant.stringChild($0, 1)) }
            }
            self.events.replaceAll(pairs)
            self.onListenersChanged?()
        }
    }

    private func listenerSignal(_ parameters: OpaquePointer, registered: Bool) {
        let type = Variant.typeString(parameters)
        // (s bus, s event, as properties) and (s bus, s event); anything else is dropped.
        guard type.hasPrefix("(ss") else { return }
        let listener = Variant.stringChild(parameters, 0)
        let event = Variant.stringChild(parameters, 1)
        if registered { events.add(listener: listener, event: event) } else { events.remove(listener: listener, event: event) }
        onListenersChanged?()
    }

    /// Broadcasts `org.a11y.atspi.Event.<interface>.<member>(s i i v a{sv})` from `path`.
    /// One event of AtspiInterfaces.objectEvents, with the siiva{sv} argument libatspi accepts.
    func emit(path: String, _ event: InterfaceSignal, detail: String, detail1: Int32, detail2: Int32, value: OpaquePointer) {
        guard isOpen else { return }
        let parameters = Variant.tuple([
            Variant.string(detail), g_variant_new_int32(detail1), g_variant_new_int32(detail2),
            g_variant_new_variant(value), Variant.container("a{sv}") { _ in },
        ])
        var error: UnsafeMutablePointer<GError>?
        if g_dbus_connection_emit_signal(connection, nil, path, event.interface, event.member, parameters, &error) == 0 {
            Log.warning("could not send \(event.member) on \(path): \(consumeMessage(error))")
        }
    }

    /// Unexports everything and lets the connection go; no call waits on the bus.
    func close() {
        guard isOpen else { return }
        isOpen = false
        for id in subscriptions { g_dbus_connection_signal_unsubscribe(connection, id) }
        subscriptions.removeAll()
        if subtree != 0 { g_dbus_connection_unregister_subtree(connection, subtree) }
        if cache != 0 { g_dbus_connection_unregister_object(connection, cache) }
        if closedHandler != 0 { g_signal_handler_disconnect(UnsafeMutableRawPointer(connection), closedHandler) }
        g_dbus_connection_close(connection, nil, nil, nil)
        g_object_unref(UnsafeMutableRawPointer(connection))
    }
}

/// A failure to set up the export; the daemon logs it and goes on without it.
struct AccessibilityError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
