import ProgressBus
import ProgressCore

/// The values the front door holds for tasks that update frequently (`StagedValues`) as an
/// input: their batches go down the stream as they are applied, and a timer applies them
/// at the pace of the tasks' signals when nothing else does sooner (another call, a read,
/// a timing rule, a departure, the stop).
final class StagedValueInput: DaemonInput {
    private let context: DaemonContext
    private let timer: MainLoopTimer

    init(context: DaemonContext) {
        self.context = context
        timer = MainLoopTimer(clock: context.clock)
        timer.action = { [unowned context] in context.submit(context.frontDoor.applyHeld()) }
        context.frontDoor.holdsValues = true
        context.heldValuesDue = { [unowned self] delay in timer.arm(at: context.clock.monotonicMicros + delay) }
    }

    var interest: TaskProperties { [] }
    func publish(_ batch: ChangeBatch) {}
    func start() {}

    /// What it held was applied before the stream's last event (`DaemonContext.stop`).
    func stop() {
        timer.cancel()
    }
}
