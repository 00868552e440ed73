extension TaskStore {
    /// The summary of the top-level tasks, or of those of one application.
    func summary(appId: String? = nil) -> TaskSummary {
        tasks.totals(appId: appId).summary
    }

    /// The same summary by a walk of every task: what the running totals must equal (tests).
    func summaryByWalking(appId: String? = nil) -> TaskSummary {
        TaskSummary(of: tasks.tasks.lazy.filter { appId == nil || $0.appId == appId })
    }
}
