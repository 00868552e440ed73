import CGLib
import ProgressBus
import ProgressCore

/// The C side of the Progress1 objects: GDBus vtables for the manager, its ObjectManager
/// and the task subtree. C callbacks cannot capture, so each one finds the service through
/// its user_data pointer; the service outlives every registration made here.
final class TaskObjects {
    private unowned let service: ProgressService
    private var registrations: [UInt32] = []
    private var subtreeRegistration: UInt32 = 0
    private let managerVTable = UnsafeMutablePointer<GDBusInterfaceVTable>.allocate(capacity: 1)
    private let objectManagerVTable = UnsafeMutablePointer<GDBusInterfaceVTable>.allocate(capacity: 1)
    let taskVTable = UnsafeMutablePointer<GDBusInterfaceVTable>.allocate(capacity: 1)
    /// For a path under tasks/ that names no task: without get_property, GDBus hands
    /// Get and GetAll to method_call, which answers UnknownObject (not UnknownMethod).
    let missingTaskVTable = UnsafeMutablePointer<GDBusInterfaceVTable>.allocate(capacity: 1)
    private let subtreeVTable = UnsafeMutablePointer<GDBusSubtreeVTable>.allocate(capacity: 1)

    init(service: ProgressService) {
        self.service = service
        managerVTable.initialize(to: GDBusInterfaceVTable(
            method_call: { _, sender, _, _, _, parameters, invocation, userData in
                assertOnMainLoop()
                let service = TaskObjects.service(userData)
                guard let index = service.managerDispatch.index(of: invocation!) else {
                    return service.refuseUnknownMethod(invocation!)
                }
                let handler = service.managerHandlers[index].run
                // The parameters belong to the invocation, which lives until it is answered,
                // so a call that waits for its sender's identity keeps them.
                service.identities.withIdentity(
                    of: sender!,
                    now: { client in service.handleManagerCall(handler, client, parameters!, invocation!) },
                    later: { { client in service.handleManagerCall(handler, client, parameters!, invocation!) } })
            },
            get_property: { _, _, _, _, property, error, userData in
                assertOnMainLoop()
                let value = TaskObjects.service(userData).managerProperty(String(cString: property!))
                if value == nil { shim_set_dbus_error(error, G_DBUS_ERROR_UNKNOWN_PROPERTY, "no such property") }
                return value
            },
            set_property: nil, padding: (nil, nil, nil, nil, nil, nil, nil, nil)))
        objectManagerVTable.initialize(to: GDBusInterfaceVTable(
            method_call: { _, _, _, _, _, _, invocation, userData in
                assertOnMainLoop()
                TaskObjects.service(userData).handleGetManagedObjects(invocation: invocation!)
            },
            get_property: nil, set_property: nil, padding: (nil, nil, nil, nil, nil, nil, nil, nil)))
        taskVTable.initialize(to: GDBusInterfaceVTable(
            method_call: { _, _, _, _, method, _, invocation, _ in
                // The Task interface has no methods; GDBus only gets here for a malformed table.
                g_dbus_method_invocation_return_dbus_error(
                    invocation, "org.freedesktop.DBus.Error.UnknownMethod", "no method \(String(cString: method!)) on tasks")
            },
            get_property: { _, _, path, _, property, error, userData in
                assertOnMainLoop()
                let value = TaskObjects.service(userData).taskProperty(
                    path: String(cString: path!), property: String(cString: property!))
                if value == nil {
                    shim_set_dbus_error(error, G_DBUS_ERROR_UNKNOWN_OBJECT, "no task at \(String(cString: path!))")
                }
                return value
            },
            set_property: nil, padding: (nil, nil, nil, nil, nil, nil, nil, nil)))
        missingTaskVTable.initialize(to: GDBusInterfaceVTable(
            method_call: { _, _, path, _, _, _, invocation, _ in
                assertOnMainLoop()
                g_dbus_method_invocation_return_dbus_error(
                    invocation, "org.freedesktop.DBus.Error.UnknownObject", "no task at \(String(cString: path!))")
            },
            get_property: nil, set_property: nil, padding: (nil, nil, nil, nil, nil, nil, nil, nil)))
        subtreeVTable.initialize(to: GDBusSubtreeVTable(
            enumerate: { _, _, _, userData in
                assertOnMainLoop()
                return GDBusArrays.strings(TaskObjects.service(userData).taskPathElements)
            },
            introspect: { _, _, _, node, userData in
                assertOnMainLoop()
                let service = TaskObjects.service(userData)
                // The tasks/ folder itself has no interfaces; each task has one. A path that
                // could name a task but does not gets it too, so that GDBus dispatches its
                // Get and GetAll, to be answered UnknownObject; only existing tasks are listed.
                guard let node else { return GDBusArrays.interfaces([]) }
                guard TaskName(pathElement: String(cString: node), limits: service.frontDoor.limits) != nil else { return nil }
                return GDBusArrays.interfaces([service.interfaces.task])
            },
            dispatch: { _, _, _, interface, node, outUserData, userData in
                assertOnMainLoop()
                let service = TaskObjects.service(userData)
                guard let node, let interface, String(cString: interface) == BusNames.taskInterface else { return nil }
                outUserData?.pointee = userData
                guard service.task(atPathElement: String(cString: node)) != nil else {
                    return UnsafePointer(service.objects.missingTaskVTable)
                }
                return UnsafePointer(service.objects.taskVTable)
            },
            padding: (nil, nil, nil, nil, nil, nil, nil, nil)))
    }

    deinit {
        managerVTable.deallocate()
        objectManagerVTable.deallocate()
        taskVTable.deallocate()
        missingTaskVTable.deallocate()
        subtreeVTable.deallocate()
    }

    private var userData: gpointer { Unmanaged.passUnretained(service).toOpaque() }

    func register() throws(DaemonError) {
        let connection = service.context.connection
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
    }

    func unregister() {
        let connection = service.context.connection
        for id in registrations { g_dbus_connection_unregister_object(connection, id) }
        registrations.removeAll()
        if subtreeRegistration != 0 { g_dbus_connection_unregister_subtree(connection, subtreeRegistration) }
        subtreeRegistration = 0
    }

    private static func service(_ userData: gpointer?) -> ProgressService {
        Unmanaged<ProgressService>.fromOpaque(userData!).takeUnretainedValue()
    }
}
