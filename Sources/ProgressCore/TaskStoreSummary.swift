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
