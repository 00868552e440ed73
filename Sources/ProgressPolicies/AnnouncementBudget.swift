import ProgressModel

/// The pace of one listener's announcements across all its tasks, after AnnouncementPolicy
/// has judged each task on its own: a screen reader speaks about one sentence a second,
/// and 5,000 tasks starting at once must not queue 5,000 sentences (issue 12). At most one
/// announcement goes out per `intervalMicros`; what comes sooner waits, and when the
/// interval is up everything that waited is said in one: a task's own sentence if it is
/// the only one, else a summary ("5 tasks finished, 1 failed: backup: disk full, 12 tasks,
/// 40 percent overall"). Progress and starts of the same task replace each other; an
/// outcome is never dropped, and a summary names at most `maxFailuresNamed` failures, the
/// others waiting for the next one, so every failure is named in the end, up to
/// `maxFailuresWaiting`: past those, a flood of failures (a thousand clients leaving at
/// once) is counted in the next summary instead of held, task by task, for the hour it
/// would take to name them all.
public struct AnnouncementBudget: Sendable {
    /// What the listener is told: one task's sentence, or a summary of several.
    public enum Spoken: Sendable {
        case single(ProgressTask, AnnouncementPolicy.Announcement)
        case summary(AnnouncementSummary)

        /// The task it is about; nil for a summary.
        public var name: TaskName? {
            if case .single(let task, _) = self { task.name } else { nil }
        }

        /// The sentence, in the language of `texts`.
        public func sentence(_ texts: TaskDescribing) -> String {
            switch self {
            case .single(let task, _): texts.accessibleText(of: task)
            case .summary(let summary): texts.summary(summary)
            }
        }

        public var politeness: AnnouncementPolicy.Politeness {
            switch self {
            case .single(_, let announcement): announcement.politeness
            case .summary(let summary): summary.failed.isEmpty ? .polite : .assertive
            }
        }
    }

    public static let defaultIntervalMicros = Limits.defaultAnnouncementIntervalMicros
    /// Failures named in one summary: a sentence a person can still follow.
    public static let maxFailuresNamed = 5
    /// Failures held to be named: twenty summaries' worth.
    public static let maxFailuresWaiting = 100

    public let intervalMicros: Int64
    private var nextAllowed: Int64 = .min
    /// What waits, by task, with the order the tasks first waited in.
    private var waiting: [TaskName: (task: ProgressTask, event: AnnouncementPolicy.Event)] = [:]
    private var order: [TaskName] = []
    /// How many of `waiting` are failures.
    private(set) var failuresWaiting = 0
    /// Failures past `maxFailuresWaiting`, to be counted in the next summary.
    private var failuresOnlyCounted = 0

    public init(intervalMicros: Int64 = defaultIntervalMicros) {
        self.intervalMicros = max(1, intervalMicros)
    }

    /// When `takeDue` has something to say; nil when nothing waits.
    public var nextDeadline: Int64? { waiting.isEmpty && failuresOnlyCounted == 0 ? nil : nextAllowed }

    /// What to say now about `announcement`, if the budget allows; otherwise it waits
    /// (the caller arms a timer for `nextDeadline`). `task` is the task as it is now.
    public mutating func offer(
        _ announcement: AnnouncementPolicy.Announcement, task: ProgressTask, now: Int64
    ) -> Spoken? {
        if waiting.isEmpty && failuresOnlyCounted == 0 && now >= nextAllowed {
            nextAllowed = now + intervalMicros
            return .single(task, announcement)
        }
        let held = waiting[announcement.name]
        // An outcome is not replaced by anything but a later outcome of a restarted task.
        if let held, Self.rank(held.event) > Self.rank(announcement.event) { return nil }
        let failureBefore = held?.event == .failed
        if announcement.event == .failed && !failureBefore && failuresWaiting >= Self.maxFailuresWaiting {
            failuresOnlyCounted += 1
            return nil
        }
        if held == nil { order.append(announcement.name) }
        waiting[announcement.name] = (task, announcement.event)
        if announcement.event == .failed && !failureBefore { failuresWaiting += 1 }
        return nil
    }

    /// A task that is gone: its progress no longer needs saying; its outcome still does.
    public mutating func removed(_ name: TaskName) {
        guard let held = waiting[name], Self.rank(held.event) < Self.rank(.finished) else { return }
        waiting[name] = nil
        order.removeAll { $0 == name }
    }

    /// Everything that waited, in one announcement, once the interval is up.
    public mutating func takeDue(now: Int64) -> Spoken? {
        guard !waiting.isEmpty || failuresOnlyCounted > 0, now >= nextAllowed else { return nil }
        nextAllowed = now + intervalMicros
        if order.count == 1, failuresOnlyCounted == 0, let name = order.first, let held = waiting[name] {
            waiting = [:]
            order = []
            failuresWaiting = 0
            return .single(held.task, AnnouncementPolicy.Announcement(name: name, event: held.event))
        }
        var summary = AnnouncementSummary()
        var kept: [TaskName] = []
        var fractionSum = 0.0
        for name in order {
            guard let held = waiting[name] else { continue }
            switch held.event {
            case .failed where summary.failed.count < Self.maxFailuresNamed: summary.failed.append(held.task)
            case .failed:
                kept.append(name)
                continue
            case .finished: summary.finished += 1
            case .cancelled: summary.cancelled += 1
            case .paused: summary.paused += 1
            case .stalled: summary.stalled += 1
            case .started, .progress:
                summary.moving += 1
                fractionSum += held.task.fraction
            }
            waiting[name] = nil
        }
        if waiting.isEmpty { waiting = [:] }  // gives back the capacity of a burst
        summary.failedLater = kept.count + failuresOnlyCounted
        failuresWaiting = kept.count
        failuresOnlyCounted = 0
        summary.overallPercent = summary.moving > 0
            ? Int((fractionSum / Double(summary.moving) * 100).rounded(.down)) : 0
        order = kept
        return .summary(summary)
    }

    private static func rank(_ event: AnnouncementPolicy.Event) -> Int {
        switch event {
        case .started, .progress: 0
        case .paused, .stalled: 1
        case .finished, .cancelled: 2
        case .failed: 3
        }
    }
}
