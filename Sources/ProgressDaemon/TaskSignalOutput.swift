import ProgressBus
import ProgressModel
import ProgressCore
import ProgressPolicies

/// The signals of the task objects, in the order a listener must hear them: ObjectManager's
/// InterfacesAdded when a task appears (before anything is said about its parent),
/// PropertiesChanged on each task object, coalesced to the task signal rate (state changes
/// at once, the trailing edge always sent), the request signals the job listens for, and
/// InterfacesRemoved when it goes (after what was held for it: nothing older may follow).
/// One output, because the order between them is the point.
final class TaskSignalOutput: ChangeOutput {
    private let context: DaemonContext
    private let variants: TaskVariants
    private var coalescer: SignalCoalescer
    private lazy var timer = MainLoopTimer(clock: context.clock) { [unowned self] in sendDue() }

    init(context: DaemonContext, variants: TaskVariants) {
        self.context = context
        self.variants = variants
        coalescer = SignalCoalescer(maxSignalsPerSecond: context.limits.maxSignalsPerSecond)
    }

    /// Nothing is sent once the daemon stops.
    func stop() { timer.cancel() }

    func publish(_ batch: ChangeBatch) {
        // Restored tasks are there before the bus name is: no client can have heard of them.
        if batch.origin.isRestore { return }
        let now = context.clock.monotonicMicros
        for change in batch.changes {
            if change.kind == .created { interfacesAdded(change.task) }
            if change.kind == .removed { interfacesRemoved(change) }
            switch coalescer.record(change, now: now) {
            case .signal(let properties): send(change.task, properties)
            case .hold(let until): timer.arm(at: until)
            case .alsoHeld, .none: break
            }
            for request in change.requests where change.kind == .updated {
                // Requests follow whatever was held for the task, so the job sees them in order.
                flush(change.task)
                context.signals.broadcast(request.signal, path: BusNames.taskPath(change.name), Variant.tuple([]))
            }
        }
    }

    func flushBeforeRead(_ scope: ReadScope, tasks: TaskView) {
        switch scope {
        case .task(let name): flush(name, tasks)
        case .tasks(let names): for name in names { flush(name, tasks) }
        case .everything:
            for entry in coalescer.flushAll(now: context.clock.monotonicMicros) {
                send(entry.name, entry.properties, tasks)
            }
        case .manager: break
        }
    }

    private func interfacesAdded(_ task: ProgressTask) {
        context.signals.broadcast(
            Progress1Signals.interfacesAdded, path: BusNames.managerPath,
            Variant.tuple([
                Variant.objectPath(BusNames.taskPath(task.name)), variants.interfaces(of: task, texts: context.texts),
            ]))
    }

    /// What is held for the task goes first, with its last values; then the object goes.
    private func interfacesRemoved(_ change: TaskChange) {
        if let task = change.lastValue,
           let properties = coalescer.flush(change.name, now: context.clock.monotonicMicros) {
            send(task, properties)
        }
        let interfaces = Variant.container("as") { Variant.add($0, Variant.string(BusNames.taskInterface)) }
        context.signals.broadcast(
            Progress1Signals.interfacesRemoved, path: BusNames.managerPath,
            Variant.tuple([Variant.objectPath(BusNames.taskPath(change.name)), interfaces]))
    }

    /// What is held for the task the change is about, with the values the change left.
    private func flush(_ task: ProgressTask) {
        if let properties = coalescer.flush(task.name, now: context.clock.monotonicMicros) { send(task, properties) }
    }

    private func flush(_ name: TaskName, _ tasks: TaskView) {
        if let properties = coalescer.flush(name, now: context.clock.monotonicMicros) { send(name, properties, tasks) }
    }

    /// The held signals that fell due, with the values a read shows: the values held at
    /// the front door applied first, so that they are not a pace behind.
    private func sendDue() {
        context.read(.tasks([])) { tasks in
            for entry in coalescer.takeDue(now: context.clock.monotonicMicros) {
                send(entry.name, entry.properties, tasks)
            }
        }
        if let next = coalescer.nextDeadline { timer.arm(at: next) }
    }

    private func send(_ name: TaskName, _ properties: TaskProperties, _ tasks: TaskView) {
        guard let task = tasks.task(name) else { return }
        send(task, properties)
    }

    private func send(_ task: ProgressTask, _ properties: TaskProperties) {
        context.signals.propertiesChanged(
            path: BusNames.taskPath(task.name), interface: BusNames.taskInterface,
            variants.properties(properties, of: task, texts: context.texts))
    }
}
