import ProgressBus
import ProgressCore

/// org.freedesktop.DBus.ObjectManager's InterfacesAdded and InterfacesRemoved, as tasks
/// come and go. Runs before the task signals: a new task's object appears before anything
/// is said about its parent, and a task's held signals go out before it disappears.
final class ObjectManagerOutput: ChangeOutput {
    private let context: DaemonContext
    private let variants: TaskVariants
    private unowned let taskSignals: TaskSignalOutput

    init(context: DaemonContext, variants: TaskVariants, taskSignals: TaskSignalOutput) {
        self.context = context
        self.variants = variants
        self.taskSignals = taskSignals
    }

    func publish(_ batch: ChangeBatch) {
        for change in batch.changes {
            switch change.kind {
            case .created:
                guard let task = context.store.task(change.name) else { continue }
                context.signals.broadcast(
                    path: BusNames.managerPath, interface: BusNames.objectManagerInterface, member: "InterfacesAdded",
                    Variant.tuple([Variant.objectPath(BusNames.taskPath(change.name)), variants.interfaces(of: task, texts: context.texts)]))
            case .removed:
                // InterfacesRemoved is the last word on a task: nothing older may follow it.
                taskSignals.flushRemoved(change)
                let interfaces = Variant.container("as") { Variant.add($0, Variant.string(BusNames.taskInterface)) }
                context.signals.broadcast(
                    path: BusNames.managerPath, interface: BusNames.objectManagerInterface, member: "InterfacesRemoved",
                    Variant.tuple([Variant.objectPath(BusNames.taskPath(change.name)), interfaces]))
            case .updated:
                continue
            }
        }
    }
}
