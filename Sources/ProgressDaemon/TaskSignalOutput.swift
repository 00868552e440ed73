import ProgressBus
import ProgressCore

/// PropertiesChanged on each task object, coalesced to the task signal rate (state changes
/// at once, the trailing edge always sent), and the request signals the job listens for.
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

    func publish(_ batch: ChangeBatch) {
        let now = context.clock.monotonicMicros
        for change in batch.changes {
            switch coalescer.record(change, now: now) {
            case .signal(let properties): send(change.name, properties)
            case .hold(let until): timer.arm(at: until)
            case .none: break
            }
            for request in change.requests where change.kind == .updated {
                // Requests follow whatever was held for the task, so the job sees them in order.
                flush(change.name)
                context.signals.broadcast(
                    path: BusNames.taskPath(change.name), interface: BusNames.taskInterface, member: request.signalName,
                    Variant.tuple([]))
            }
        }
    }

    func flushBeforeRead(_ scope: ReadScope) {
        switch scope {
        case .task(let name): flush(name)
        case .everything:
            for entry in coalescer.flushAll(now: context.clock.monotonicMicros) { send(entry.name, entry.properties) }
        case .manager: break
        }
    }

    /// Sends what is held for a task that is being removed, with its last values.
    func flushRemoved(_ change: TaskChange) {
        guard let task = change.lastValue, let properties = coalescer.flush(change.name, now: context.clock.monotonicMicros) else {
            return
        }
        send(task, properties)
    }

    private func flush(_ name: TaskName) {
        if let properties = coalescer.flush(name, now: context.clock.monotonicMicros) { send(name, properties) }
    }

    private func sendDue() {
        for entry in coalescer.takeDue(now: context.clock.monotonicMicros) { send(entry.name, entry.properties) }
        if let next = coalescer.nextDeadline { timer.arm(at: next) }
    }

    private func send(_ name: TaskName, _ properties: TaskProperties) {
        guard let task = context.store.task(name) else { return }
        send(task, properties)
    }

    private func send(_ task: ProgressTask, _ properties: TaskProperties) {
        context.signals.propertiesChanged(
            path: BusNames.taskPath(task.name), interface: BusNames.taskInterface,
            variants.properties(properties, of: task, texts: context.texts))
    }
}
