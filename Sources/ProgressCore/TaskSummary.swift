/// One figure for many tasks: what a panel shows for all jobs (`Overall`) or a dock for
/// one application's (`Aggregate`).
public struct TaskSummary: Equatable, Sendable {
    /// Weighted mean of the live determinate tasks' fractions; 0 when there are none.
    public var fraction = 0.0
    /// `failed` if a failed task is still lingering, else `paused` if a live one is paused,
    /// else `running` if any is live, else `idle` — the priority the Windows taskbar gives
    /// grouped buttons (error > paused > normal).
    public var state = "idle"
    /// Live tasks counted.
    public var active: UInt32 = 0
    /// True when every live task counted is indeterminate.
    public var indeterminate = false
    /// True when a live task counted is stalled.
    public var stalled = false

    public init() {}
}

extension TaskStore {
    /// The summary of the top-level tasks, or of those of one application.
    public func summary(appId: String? = nil) -> TaskSummary {
        var summary = TaskSummary()
        var weighted = 0.0
        var weights = 0.0
        var anyFailed = false
        var anyPaused = false
        var determinate = 0
        for task in tasks.tasks where task.parent == nil && (appId == nil || task.appId == appId) {
            if task.ownState == .failed { anyFailed = true }
            guard task.isLive else { continue }
            summary.active += 1
            if task.state == .paused { anyPaused = true }
            if task.isStalled { summary.stalled = true }
            if !task.indeterminate {
                determinate += 1
                weighted += task.weight * task.storedFraction
                weights += task.weight
            }
        }
        summary.fraction = weights > 0 ? weighted / weights : 0
        summary.indeterminate = summary.active > 0 && determinate == 0
        summary.state = anyFailed ? "failed" : anyPaused ? "paused" : summary.active > 0 ? "running" : "idle"
        return summary
    }
}
