import ProgressBus
import ProgressCore

/// The broadcast Announcement signal: what is worth saying to a person about each task,
/// judged by AnnouncementPolicy and spoken in the daemon's locale.
final class AnnouncementOutput: ChangeOutput {
    private let context: DaemonContext
    private var policy = AnnouncementPolicy()

    init(context: DaemonContext) {
        self.context = context
    }

    func publish(_ batch: ChangeBatch) {
        let now = context.clock.monotonicMicros
        for change in batch.changes {
            let task = context.store.task(change.name)
            guard let announcement = policy.consider(change, task: task, now: now), let task else { continue }
            context.signals.broadcast(
                path: BusNames.managerPath, interface: BusNames.managerInterface, member: "Announcement",
                TaskVariants.announcement(of: task, announcement, texts: context.texts))
        }
    }
}
