import CGLib
import ProgressBus
import ProgressModel

/// The Progress1 objects on the bus: the manager (Manager and ObjectManager) and the task
/// subtree, exported through ProgressBus's exporter. Every incoming call waits its caller's
/// turn (`CallerIdentityCache`, the fair queue): method calls, GetManagedObjects and property
/// reads alike, so that a client that pipelines a Start and then reads what it started
/// never reads before its Start is applied.
final class TaskObjects {
    private unowned let service: ProgressService
    private var manager: ExportedObject?
    private var tasks: ExportedSubtree?

    init(service: ProgressService) {
        self.service = service
    }

    func register() throws(DaemonError) {
        let connection = service.context.connection
        let interfaces = try Self.interfaces(of: service)
        manager = try ExportedObject(
            on: connection, path: BusNames.managerPath, [interfaces.manager, interfaces.objectManager])
        // A subtree serves any number of tasks without an object registration each. A path
        // that could name a task is dispatched whether or not the task exists yet: whether it
        // does is decided in its caller's turn (UnknownObject if not); only tasks are listed.
        let service = self.service
        let task = interfaces.task
        tasks = try ExportedSubtree(
            on: connection, path: BusNames.tasksPath, interfaces: [task], dispatchToUnlisted: true,
            nodes: { [unowned service] in service.taskPathElements },
            serves: { [unowned service] node in
                TaskName(pathElement: node, limits: service.frontDoor.limits) != nil ? [task] : nil
            })
    }

    func unregister() {
        manager?.end()
        manager = nil
        tasks?.end()
        tasks = nil
    }

    /// The three interfaces with their rows, each checked against the embedded XML.
    static func interfaces(of service: ProgressService) throws(DaemonError)
        -> (manager: ExportedInterface, objectManager: ExportedInterface, task: ExportedInterface)
    {
        let inTurn: ExportedInterface.ReadTurn = { [unowned service] call, read in
            service.identities.withIdentity(of: call.sender!) { _ in read() }
        }
        let manager = try ExportedInterface(
            service.interfaces.manager,
            methods: ProgressService.managerMethods.map { handler in
                { [unowned service] call in
                    // The parameters belong to the invocation, which lives until it is
                    // answered, so a call that waits for its sender's identity keeps them.
                    service.identities.withIdentity(of: call.sender!) { client in
                        service.handleManagerCall(handler, client, call.parameters, call.invocation)
                    }
                }
            },
            properties: PropertyTable(interface: BusNames.managerInterface, ManagerProperty.all.map { property in
                (property.name, { [unowned service] (_: String) throws(CallFailure) -> OpaquePointer in
                    service.managerProperty(property.name)!
                })
            }),
            readsWait: inTurn)
        let objectManager = try ExportedInterface(
            service.interfaces.objectManager,
            methods: MethodTable(interface: BusNames.objectManagerInterface, [
                ("GetManagedObjects", { [unowned service] call in
                    inTurn(call) { service.handleGetManagedObjects(invocation: call.invocation) }
                }),
            ]))
        let task = try ExportedInterface(
            service.interfaces.task,
            methods: MethodTable(interface: BusNames.taskInterface, []),
            properties: PropertyTable(
                interface: BusNames.taskInterface, service.frontDoor.properties.descriptors.map { descriptor in
                (descriptor.name, { [unowned service] (path: String) throws(CallFailure) -> OpaquePointer in
                    guard let value = service.taskProperty(path: path, property: descriptor.name) else {
                        throw .unknownObject("no task at \(path)")
                    }
                    return value
                })
            }),
            readsWait: inTurn)
        return (manager, objectManager, task)
    }
}
