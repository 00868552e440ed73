import ProgressBus
import ProgressModel
import ProgressCore
import ProgressPolicies

/// The broadcast Announcement signal: what is worth saying to a person about each task,
/// judged by AnnouncementPolicy, paced across all tasks by AnnouncementBudget (at most one
/// a second, what waited merged into one sentence), and spoken in the daemon's locale.
/// The one budget for every announcer that speaks for the daemon: what it lets through
/// also goes to `DaemonContext.onAnnouncement`'s listeners (AT-SPI), which judge and pace
/// nothing of their own, so a screen reader hearing both doors hears one bounded stream.
final class AnnouncementOutput: ChangeOutput {
    private let context: DaemonContext
    private var policy = AnnouncementPolicy()
    private var budget: AnnouncementBudget
    private lazy var timer = MainLoopTimer(clock: context.clock) { [unowned self] in sendDue() }

    init(context: DaemonContext) {
        self.context = context
        budget = AnnouncementBudget(intervalMicros: context.limits.announcementIntervalMicros)
    }

    /// Nothing is sent once the daemon stops.
    func stop() { timer.cancel() }

    func publish(_ batch: ChangeBatch) {
        // A restored task did not just happen: nothing to say about it.
        if batch.origin.isRestore { return }
        let now = context.clock.monotonicMicros
        for change in batch.changes where policy.mayAnnounce(change, now: now) {
            if change.kind == .removed { budget.removed(change.name) }
            guard let announcement = policy.consider(change, now: now) else { continue }
            if let spoken = budget.offer(announcement, task: change.task, now: now) { send(spoken) }
        }
        if let deadline = budget.nextDeadline { timer.arm(at: deadline) }
    }

    private func sendDue() {
        if let spoken = budget.takeDue(now: context.clock.monotonicMicros) { send(spoken) }
        if let deadline = budget.nextDeadline { timer.arm(at: deadline) }
    }

    private func send(_ spoken: AnnouncementBudget.Spoken) {
        context.signals.broadcast(
            Progress1Signals.announcement, path: BusNames.managerPath,
            TaskVariants.announcement(spoken, texts: context.texts))
        context.announced(spoken)
    }
}
