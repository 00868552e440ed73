import ProgressModel

/// Texts without a locale for tests that need a TaskDescribing but check no sentence: the
/// label is the percent, the accessible text the title, and every other text is empty.
public struct PlainTexts: TaskDescribing {
    public init() {}
    public func label(wholePercent: Int) -> String { "\(wholePercent) %" }
    public func detail(of task: ProgressTask) -> String { "" }
    public func accessibleText(of task: ProgressTask) -> String { task.title }
    public func summary(_ summary: AnnouncementSummary) -> String { "" }
    public func burst(_ burst: NotificationBurst) -> (title: String, body: String) { ("", "") }
}
