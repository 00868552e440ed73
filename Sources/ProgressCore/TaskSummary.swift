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

/// The sums behind a summary, kept as tasks change (`TaskTable`), so that `Overall` and
/// `Aggregate` cost the same among 100,000 tasks as among ten: every update may change them.
struct SummaryTotals: Equatable, Sendable {
    var live = 0
    var determinate = 0
    var failed = 0
    var paused = 0
    var stalled = 0
    var weighted = 0.0
    var weights = 0.0

    var isEmpty: Bool { live == 0 && failed == 0 }

    /// Adds (`sign` 1) or takes away (-1) what one task counts for; only top-level tasks do.
    mutating func count(_ task: ProgressTask, _ sign: Int) {
        guard task.parent == nil else { return }
        if task.ownState == .failed { failed += sign }
        guard task.isLive else { return }
        live += sign
        if task.state == .paused { paused += sign }
        if task.isStalled { stalled += sign }
        if !task.indeterminate {
            determinate += sign
            weighted += Double(sign) * task.weight * task.storedFraction
            weights += Double(sign) * task.weight
        }
        // Sums of doubles kept by adding and taking away drift; with nothing to sum they are 0.
        if determinate == 0 {
            weighted = 0
            weights = 0
        }
    }

    /// Counts a top-level task that changed from `old` to `new`, and tells whether the
    /// totals count no task after it.
    mutating func moveLeavingEmpty(from old: ProgressTask, to new: ProgressTask) -> Bool {
        count(old, -1)
        count(new, 1)
        return isEmpty
    }

    var summary: TaskSummary {
        var summary = TaskSummary()
        summary.active = UInt32(clamping: live)
        summary.stalled = stalled > 0
        summary.fraction = weights > 0 ? min(1, max(0, weighted / weights)) : 0
        summary.indeterminate = live > 0 && determinate == 0
        summary.state = failed > 0 ? "failed" : paused > 0 ? "paused" : live > 0 ? "running" : "idle"
        return summary
    }
}

extension TaskStore {
    /// The summary of the top-level tasks, or of those of one application.
    func summary(appId: String? = nil) -> TaskSummary {
        tasks.totals(appId: appId).summary
    }

    /// The same summary by a walk of every task: what the running totals must equal (tests).
    func summaryByWalking(appId: String? = nil) -> TaskSummary {
        var totals = SummaryTotals()
        for task in tasks.tasks where appId == nil || task.appId == appId { totals.count(task, 1) }
        return totals.summary
    }
}
