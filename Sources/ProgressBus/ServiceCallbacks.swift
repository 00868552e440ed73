import CGLib
import ProgressCore

/// The C side of `ProgressService`: GDBus vtables, the task subtree, the owner watch and
/// the flush timer. C callbacks cannot capture, so each one finds the service through
/// its user_data pointer; the service outlives every registration made here.
final class ServiceCallbacks {
    private unowned let service: ProgressService
    private var registrations: [UInt32] = []
    private var subtreeRegistration: UInt32 = 0
    private var ownerWatch: UInt32 = 0
    private let managerVTable = UnsafeMutablePointer<GDBusInterfaceVTable>.allocate(capacity: 1)
    private let objectManagerVTable = UnsafeMutablePointer<GDBusInterfaceVTable>.allocate(capacity: 1)
    private let taskVTable = UnsafeMutablePointer<GDBusInterfaceVTable>.allocate(capacity: 1)
    private let subtreeVTable = UnsafeMutablePointer<GDBusSubtreeVTable>.allocate(capacity: 1)

    init(service: ProgressService) {
        self.service = service
        managerVTable.initialize(to: GDBusInterfaceVTable(
            method_call: { _, sender, _, _, method, parameters, invocation, userData in
                ServiceCallbacks.service(userData).handleManagerCall(
                    sender: String(cString: sender!), method: String(cString: method!),
                    parameters: parameters!, invocation: invocation!)
            },
            get_property: { _, _, _, _, property, error, userData in
                let value = ServiceCallbacks.service(userData).managerProperty(String(cString: property!))
                if value == nil { shim_set_dbus_error(error, G_DBUS_ERROR_UNKNOWN_PROPERTY, "no such property") }
                return value
            },
            set_property: nil, padding: (nil, nil, nil, nil, nil, nil, nil, nil)))
        objectManagerVTable.initialize(to: GDBusInterfaceVTable(
            method_call: { _, _, _, _, _, _, invocation, userData in
                ServiceCallbacks.service(userData).handleGetManagedObjects(invocation: invocation!)
            },
            get_property: nil, set_property: nil, padding: (nil, nil, nil, nil, nil, nil, nil, nil)))
        taskVTable.initialize(to: GDBusInterfaceVTable(
            method_call: { _, _, _, _, method, _, invocation, _ in
                // The Task interface has no methods; GDBus only gets here for a malformed table.
                g_dbus_method_invocation_return_dbus_error(
                    invocation, "org.freedesktop.DBus.Error.UnknownMethod", "no method \(String(cString: method!)) on tasks")
            },
            get_property: { _, _, path, _, property, error, userData in
                let value = ServiceCallbacks.service(userData).taskProperty(
                    path: String(cString: path!), property: String(cString: property!))
                if value == nil {
                    shim_set_dbus_error(error, G_DBUS_ERROR_UNKNOWN_OBJECT, "no task at \(String(cString: path!))")
                }
                return value
            },
            set_property: nil, padding: (nil, nil, nil, nil, nil, nil, nil, nil)))
        subtreeVTable.initialize(to: GDBusSubtreeVTable(
            enumerate: { _, _, _, userData in
                ServiceCallbacks.cStringArray(ServiceCallbacks.service(userData).taskPathElements)
            },
            introspect: { _, _, _, node, userData in
                let service = ServiceCallbacks.service(userData)
                // The tasks/ folder itself has no interfaces; each existing task has one.
                guard let node else { return ServiceCallbacks.interfaceArray(nil) }
                guard service.task(atPathElement: String(cString: node)) != nil else { return nil }
                return ServiceCallbacks.interfaceArray(service.interfaces.task)
            },
            dispatch: { _, _, _, interface, node, outUserData, userData in
                let service = ServiceCallbacks.service(userData)
                guard let node, let interface, String(cString: interface) == BusNames.taskInterface,
                      service.task(atPathElement: String(cString: node)) != nil else { return nil }
                outUserData?.pointee = userData
                return UnsafePointer(service.callbacks.taskVTablePointer)
            },
            padding: (nil, nil, nil, nil, nil, nil, nil, nil)))
    }

    deinit {
        managerVTable.deallocate()
        objectManagerVTable.deallocate()
        taskVTable.deallocate()
        subtreeVTable.deallocate()
    }

    var taskVTablePointer: UnsafeMutablePointer<GDBusInterfaceVTable> { taskVTable }

    private var userData: gpointer { Unmanaged.passUnretained(service).toOpaque() }

    func register() throws(DaemonError) {
        let connection = service.connection
        var error: UnsafeMutablePointer<GError>?
        for (interface, vtable) in [(service.interfaces.manager, managerVTable), (service.interfaces.objectManager, objectManagerVTable)] {
            let id = g_dbus_connection_register_object(connection, BusNames.managerPath, interface, vtable, userData, nil, &error)
            guard id != 0 else { throw DaemonError("could not export \(BusNames.managerPath): \(consumeMessage(error))") }
            registrations.append(id)
        }
        // A subtree serves any number of tasks without an object registration each;
        // existence is checked in introspect/dispatch rather than by enumerating all tasks per call.
        subtreeRegistration = g_dbus_connection_register_subtree(
            connection, BusNames.tasksPath, subtreeVTable, G_DBUS_SUBTREE_FLAGS_DISPATCH_TO_UNENUMERATED_NODES,
            userData, nil, &error)
        guard subtreeRegistration != 0 else {
            throw DaemonError("could not export \(BusNames.tasksPath): \(consumeMessage(error))")
        }
        ownerWatch = g_dbus_connection_signal_subscribe(
            connection, "org.freedesktop.DBus", "org.freedesktop.DBus", "NameOwnerChanged", "/org/freedesktop/DBus",
            nil, G_DBUS_SIGNAL_FLAGS_NONE,
            { _, _, _, _, _, parameters, userData in
                let name = Variant.stringChild(parameters!, 0)
                let newOwner = Variant.stringChild(parameters!, 2)
                // A unique name (":1.42") that loses its owner is a connection that closed.
                if name.hasPrefix(":") && newOwner.isEmpty {
                    ServiceCallbacks.service(userData).connectionClosed(name)
                }
            },
            userData, nil)
    }

    /// Exports a subscription object: it has no methods, only the signals its subscriber receives.
    func registerSubscription(path: String) -> UInt32 {
        g_dbus_connection_register_object(service.connection, path, service.interfaces.subscription, nil, nil, nil, nil)
    }

    func unregister(_ registration: UInt32) {
        if registration != 0 { g_dbus_connection_unregister_object(service.connection, registration) }
    }

    func unregister() {
        let connection = service.connection
        for id in registrations { g_dbus_connection_unregister_object(connection, id) }
        registrations.removeAll()
        if subtreeRegistration != 0 { g_dbus_connection_unregister_subtree(connection, subtreeRegistration) }
        subtreeRegistration = 0
        if ownerWatch != 0 { g_dbus_connection_signal_unsubscribe(connection, ownerWatch) }
        ownerWatch = 0
    }

    /// A one-shot GLib timer that calls `action` on the service; the action arms the next one itself.
    func addTimer(milliseconds: UInt32, _ action: @escaping (ProgressService) -> Void) -> UInt32 {
        let box = Unmanaged.passRetained(TimerAction(service: service, action: action)).toOpaque()
        return g_timeout_add_full(G_PRIORITY_DEFAULT, milliseconds, { box in
            let timer = Unmanaged<TimerAction>.fromOpaque(box!).takeUnretainedValue()
            timer.action(timer.service)
            return 0 // G_SOURCE_REMOVE
        }, box, { box in Unmanaged<TimerAction>.fromOpaque(box!).release() })
    }

    private static func service(_ userData: gpointer?) -> ProgressService {
        Unmanaged<ProgressService>.fromOpaque(userData!).takeUnretainedValue()
    }

    /// A NULL-terminated, g_malloc'd array of g_strdup'd strings, which GDBus frees.
    private static func cStringArray(_ strings: [String]) -> UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>? {
        let array = g_malloc0(gsize(MemoryLayout<UnsafeMutablePointer<gchar>?>.stride * (strings.count + 1)))!
            .bindMemory(to: UnsafeMutablePointer<gchar>?.self, capacity: strings.count + 1)
        for (index, string) in strings.enumerated() { array[index] = g_strdup(string) }
        return array
    }

    /// A NULL-terminated array holding `info` (referenced) or nothing, which GDBus frees.
    private static func interfaceArray(
        _ info: UnsafeMutablePointer<GDBusInterfaceInfo>?
    ) -> UnsafeMutablePointer<UnsafeMutablePointer<GDBusInterfaceInfo>?>? {
        let array = g_malloc0(gsize(MemoryLayout<UnsafeMutablePointer<GDBusInterfaceInfo>?>.stride * 2))!
            .bindMemory(to: UnsafeMutablePointer<GDBusInterfaceInfo>?.self, capacity: 2)
        if let info { array[0] = g_dbus_interface_info_ref(info) }
        return array
    }
}

private final class TimerAction {
    unowned let service: ProgressService
    let action: (ProgressService) -> Void
    init(service: ProgressService, action: @escaping (ProgressService) -> Void) {
        self.service = service
        self.action = action
    }
}
