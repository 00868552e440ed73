/// The texts of a task in one locale: the percent label, the detail line and the sentence
/// a screen reader speaks. ProgressText provides them; Core only asks.
public protocol TaskDescribing {
    func label(wholePercent: Int) -> String
    func detail(of task: ProgressTask) -> String
    func accessibleText(of task: ProgressTask) -> String
    /// One sentence for several tasks' announcements (AnnouncementBudget).
    func summary(_ summary: AnnouncementSummary) -> String
    /// A notification's title and body for a burst of outcomes (NotificationBursts).
    func burst(_ burst: NotificationBurst) -> (title: String, body: String)
    /// What a menu entry that asks the job for `request` says ("Pause", "Resume", "Cancel").
    func requestLabel(_ request: TaskRequest) -> String
}

extension TaskDescribing {
    public func requestLabel(_ request: TaskRequest) -> String {
        switch request {
        case .cancelRequested: "Cancel"
        case .pauseRequested: "Pause"
        case .resumeRequested: "Resume"
        }
    }
}
