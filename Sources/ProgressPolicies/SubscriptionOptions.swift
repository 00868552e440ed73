import ProgressModel

/// What a subscriber asked for with Subscribe: its locale, its pace, which tasks, and which
/// signals. Parsed and checked here; ProgressDaemon's SubscriptionOutput keeps the subscriptions.
public struct SubscriptionOptions: Sendable, Equatable {
    /// "" for the daemon's locale; checked by the caller, which knows the locales.
    public var locale = ""
    /// How often progress may be announced, and how often Changed may come per task.
    public var intervalMicros: Int64 = AnnouncementPolicy.defaultIntervalMicros
    public var minimumPercentStep = 1
    /// Empty: every task.
    public var tasks: Set<TaskName> = []
    /// The pace of announcements across all the subscription's tasks (AnnouncementBudget).
    public var announcementIntervalMicros = AnnouncementBudget.defaultIntervalMicros
    public var announcements = true
    public var changes = false
    /// The resolutions at which the subscriber shows the overall (OverallStepFilter); empty:
    /// no Overall signal.
    public var overallSteps: [Int] = []

    public static let keys = [
        "locale", "interval-seconds", "min-percent-step", "tasks", "announcements", "changes",
        "announcements-per-second", "overall-steps",
    ]
    /// A ring's pixels at a large scale, twice (for rounding), fit; finer is a stream of signals.
    public static let overallStepRange = 1...10_000
    /// A percent and a ring, or a few panels' sizes: more is no longer one subscriber's view.
    public static let maxOverallResolutions = 4
    /// From a tenth of a second (a panel's smooth bar) to an hour.
    public static let intervalRange = 0.1...3_600.0

    public init() {}

    public static func parse(
        _ options: [(key: String, value: OptionValue)], limits: Limits = Limits()
    ) throws(ProgressError) -> SubscriptionOptions {
        var parsed = SubscriptionOptions()
        var reader = OptionReader(for: "Subscribe", accepting: keys)
        for (key, value) in options {
            try reader.admit(key)
            switch key {
            case "locale": parsed.locale = try reader.text(key, value)
            case "interval-seconds":
                guard let seconds = value.number else {
                    throw reader.wrongType(key, value, expected: "a number of seconds (d)")
                }
                guard seconds.isFinite, intervalRange.contains(seconds) else {
                    throw .invalidValue(
                        "interval-seconds \(seconds) is outside "
                            + "\(intervalRange.lowerBound)...\(Int(intervalRange.upperBound))")
                }
                parsed.intervalMicros = Int64(seconds * 1_000_000)
            case "min-percent-step": parsed.minimumPercentStep = try reader.whole(key, value, in: 1...100)
            case "tasks":
                var tasks = Set<TaskName>()
                for text in try reader.strings(key, value, of: "names") {
                    tasks.insert(try TaskName(text, limits: limits))
                }
                parsed.tasks = tasks
            case "announcements": parsed.announcements = try reader.flag(key, value)
            case "announcements-per-second":
                let rate = try reader.number(key, value, in: Limits.announcementRateRange)
                parsed.announcementIntervalMicros = Int64((1_000_000 / rate).rounded())
            case "changes": parsed.changes = try reader.flag(key, value)
            case "overall-steps":
                let steps = try reader.wholeNumbers(key, value, in: overallStepRange)
                guard (1...maxOverallResolutions).contains(steps.count) else {
                    throw .invalidValue(
                        "overall-steps has \(steps.count) resolutions; it takes 1 to \(maxOverallResolutions)")
                }
                parsed.overallSteps = steps
            default: preconditionFailure("option \(key) is accepted but not read")
            }
        }
        if !parsed.announcements && !parsed.changes && parsed.overallSteps.isEmpty {
            throw .invalidValue(
                "a subscription with neither announcements, changes nor overall-steps would receive nothing")
        }
        return parsed
    }

    public func covers(_ name: TaskName) -> Bool { tasks.isEmpty || tasks.contains(name) }
}
