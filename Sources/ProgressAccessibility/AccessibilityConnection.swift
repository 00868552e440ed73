import CGLib
import ProgressBus
import ProgressModel

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
    private var subtree: ExportedSubtree?
    private var cache: ExportedObject?
    private var subscriptions: [UInt32] = []
    private var closedHandler: gulong = 0
    private let info: AtspiInterfaces

    static let registryName = "org.a11y.atspi.Registry"

    /// Takes over a reference to `connection`, exports the objects and embeds.
    init(connection: OpaquePointer, model: AccessibleModel, info: AtspiInterfaces) throws(AccessibilityError) {
        self.connection = connection
        self.info = info
        objects = AccessibleObjects(
            model: model, busName: String(cString: g_dbus_connection_get_unique_name(connection)))
        try register()
    }

    deinit { close() }

    private var userData: gpointer { Unmanaged.passUnretained(self).toOpaque() }

    private static func from(_ userData: gpointer?) -> AccessibilityConnection {
        Unmanaged<AccessibilityConnection>.fromOpaque(userData!).takeUnretainedValue()
    }

    private func register() throws(AccessibilityError) {
        do throws(DaemonError) {
            let exported = try AccessibilityConnection.interfaces(of: objects, info)
            // The root serves Accessible and Application, a live bar Accessible, Value and
            // Component; any other node names nothing.
            let root = [exported.accessible, exported.application]
            let bar = [exported.accessible, exported.value, exported.component]
            subtree = try ExportedSubtree(
                on: connection, path: "/org/a11y/atspi/accessible", interfaces: root + bar.dropFirst(),
                dispatchToUnlisted: true, nodes: { [objects] in objects.nodeNames },
                serves: { [objects] node in node == "root" ? root : objects.hasBar(atNode: node) ? bar : nil })
            cache = try ExportedObject(on: connection, path: "/org/a11y/atspi/cache", [exported.cache])
        } catch {
            throw AccessibilityError("could not export the accessible objects: \(error.description)")
        }
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
        let closed: @convention(c) (OpaquePointer?, gboolean, UnsafeMutablePointer<GError>?, gpointer?) -> Void = {
            _, _, _, userData in
            assertOnMainLoop()
            let owner = AccessibilityConnection.from(userData)
            owner.closedHandler = 0
            owner.onClosed?()
        }
        closedHandler = shim_signal_connect(
            UnsafeMutableRawPointer(connection), "closed", unsafeBitCast(closed, to: GCallback.self), userData)
        embed()
    }

    /// Socket.Embed: the registry adds us under its root and sets our Id; its reply is
    /// our Parent. Then the listener list, so events nobody wants are not sent.
    private func embed() {
        let argument = Variant.tuple([Variant.reference(objects.busName, AccessibleTree.rootPath)])
        BusCall.call(
            connection, destination: Self.registryName, path: AccessibleTree.rootPath,
            interface: "org.a11y.atspi.Socket", method: "Embed", argument, replyType: "((so))",
            timeoutMilliseconds: AccessibilityBusWatch.timeoutMilliseconds, autoStart: true
        ) { [weak self] result in
            guard let self, self.isOpen else { return }
            guard case .success(let reply) = result else {
                if case .failure(let failure) = result {
                    Log.warning("the accessibility registry refused Embed: \(failure)")
                }
                return
            }
            self.objects.registryReference = Variant.withChild(reply, 0) {
                (Variant.stringChild($0, 0), Variant.stringChild($0, 1))
            }
            self.isEmbedded = true
            self.askForListeners()
        }
    }

    private func askForListeners() {
        BusCall.call(
            connection, destination: Self.registryName, path: "/org/a11y/atspi/registry",
            interface: "org.a11y.atspi.Registry", method: "GetRegisteredEvents", replyType: "(a(ss))",
            timeoutMilliseconds: AccessibilityBusWatch.timeoutMilliseconds, autoStart: true
        ) { [weak self] result in
            guard let self, self.isOpen else { return }
            guard case .success(let reply) = result else {
                if case .failure(let failure) = result {
                    Log.warning("the accessibility registry did not list its listeners: \(failure)")
                }
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
        if registered {
            events.add(listener: listener, event: event)
        } else {
            events.remove(listener: listener, event: event)
        }
        onListenersChanged?()
    }

    /// Broadcasts `org.a11y.atspi.Event.<interface>.<member>(s i i v a{sv})` from `path`.
    /// One event of AtspiInterfaces.objectEvents, with the siiva{sv} argument libatspi accepts.
    func emit(
        path: String, _ event: InterfaceSignal, detail: String, detail1: Int32, detail2: Int32, value: OpaquePointer
    ) {
        guard isOpen else { return }
        let parameters = Variant.tuple([
            Variant.string(detail), g_variant_new_int32(detail1), g_variant_new_int32(detail2),
            g_variant_new_variant(value), Variant.container("a{sv}") { _ in },
        ])
        var error: UnsafeMutablePointer<GError>?
        if g_dbus_connection_emit_signal(
            connection, nil, path, event.interface, event.member, parameters, &error) == 0 {
            Log.warning("could not send \(event.member) on \(path): \(consumeMessage(error))")
        }
    }

    /// Unexports everything and lets the connection go; no call waits on the bus.
    func close() {
        guard isOpen else { return }
        isOpen = false
        for id in subscriptions { g_dbus_connection_signal_unsubscribe(connection, id) }
        subscriptions.removeAll()
        subtree?.end()
        subtree = nil
        cache?.end()
        cache = nil
        if closedHandler != 0 { g_signal_handler_disconnect(UnsafeMutableRawPointer(connection), closedHandler) }
        g_dbus_connection_close(connection, nil, nil, nil)
        g_object_unref(UnsafeMutableRawPointer(connection))
    }
}

extension AccessibilityConnection {
    /// AT-SPI's interfaces with their rows bound to `objects`, each checked against the XML.
    static func interfaces(of objects: AccessibleObjects, _ info: AtspiInterfaces) throws(DaemonError) -> (
        accessible: ExportedInterface, application: ExportedInterface, value: ExportedInterface,
        component: ExportedInterface, cache: ExportedInterface
    ) {
        let method = { (handler: @escaping AccessibleObjects.Handler) -> ExportedInterface.Method in
            { [objects] call in objects.serve(handler, call.methodCall()) }
        }
        let getter = { (getter: @escaping AccessibleObjects.Getter) -> ExportedInterface.Getter in
            { [objects] (path: String) throws(CallFailure) -> OpaquePointer in
                getter(objects, try objects.node(at: path))
            }
        }
        let setter = { (setter: @escaping AccessibleObjects.Setter) -> ExportedInterface.Setter in
            { [objects] (path: String, value: OpaquePointer) throws(CallFailure) in try setter(objects, path, value) }
        }
        return (
            try ExportedInterface(
                info.interface(AtspiInterfaces.accessible), methods: AccessibleObjects.accessibleMethods.map(method),
                properties: AccessibleObjects.accessibleProperties.map(getter)),
            try ExportedInterface(
                info.interface(AtspiInterfaces.application), methods: AccessibleObjects.applicationMethods.map(method),
                properties: AccessibleObjects.applicationProperties.map(getter),
                setters: AccessibleObjects.applicationSetters.map(setter)),
            try ExportedInterface(
                info.interface(AtspiInterfaces.value), methods: MethodTable(interface: AtspiInterfaces.value, []),
                properties: AccessibleObjects.valueProperties.map(getter),
                setters: AccessibleObjects.valueSetters.map(setter)),
            try ExportedInterface(
                info.interface(AtspiInterfaces.component), methods: AccessibleObjects.componentMethods.map(method)),
            try ExportedInterface(info.cache, methods: AccessibleObjects.cacheMethods.map { handler in
                { [objects] call in handler(objects, call.methodCall()) }
            }))
    }
}

/// A failure to set up the export; the daemon logs it and goes on without it.
struct AccessibilityError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
