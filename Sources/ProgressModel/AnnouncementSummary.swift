/// Several tasks' announcements said in one sentence.
public struct AnnouncementSummary: Sendable {
    public var finished = 0
    public var cancelled = 0
    /// Named, each with its message.
    public var failed: [ProgressTask] = []
    /// Failures not named in this one, counted in it: those that wait for the next summary,
    /// and those past what is held to be named.
    public var failedLater = 0
    public var paused = 0
    public var stalled = 0
    /// Tasks that started or moved, and their mean percent.
    public var moving = 0
    public var overallPercent = 0

    public init() {}
}
