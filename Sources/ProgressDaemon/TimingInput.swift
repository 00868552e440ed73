import ProgressBus
import ProgressCore

/// The timing rules (stall, lease, linger) as an input: a GLib timer for the earliest
/// deadline calls the front door when it comes. It also listens to the stream, because a
/// change can bring a task's deadline closer.
final class TimingInput: DaemonInput {
    private let context: DaemonContext
    /// A `let`, read on every batch without the run-time access check of a lazy property.
    private let timer: MainLoopTimer

    init(context: DaemonContext) {
        self.context = context
        timer = MainLoopTimer(clock: context.clock)
        timer.action = { [unowned self] in run() }
    }

    /// The restored tasks' deadlines were armed as their batch went by.
    func start() {}

    /// The store queues a deadline that a change brought closer, so the earliest queued is
    /// never later than any task's (it may be earlier: the rules then find nothing due).
    func publish(_ batch: ChangeBatch) {
        if let next = context.frontDoor.nextDeadline { timer.arm(at: next) }
    }

    private func run() {
        context.submit(context.frontDoor.runTimers())
        if let next = context.frontDoor.nextDeadline { timer.arm(at: next) }
    }

    func stop() { timer.cancel() }
}
