/// What a subscriber asked for with Subscribe: its locale, its pace, which tasks, and which
/// signals. Parsed and checked here; the bus adapter keeps the subscriptions.
public struct SubscriptionOptions: Sendable, Equatable {
    /// "" for the daemon's locale; checked by the caller, which knows the locales.
    public var locale = ""
    /// How often progress may be announced, and how often Changed may come per task.
    public var intervalMicros: Int64 = AnnouncementPolicy.defaultIntervalMicros
    public var minimumPercentStep = 1
    /// Empty: every task.
    public var tasks: Set<TaskName> = []
    public var announcements = true
    public var changes = false

    public static let keys = ["locale", "interval-seconds", "min-percent-step", "tasks", "announcements", "changes"]
    /// From a tenth of a second (a panel's smooth bar) to an hour.
    public static let intervalRange = 0.1...3_600.0

    public init() {}

    public static func parse(_ options: [(key: String, value: OptionValue)], limits: Limits = Limits()) throws(ProgressError) -> SubscriptionOptions {
        var parsed = SubscriptionOptions()
        var seen = Set<String>()
        for (key, value) in options {
            if !seen.insert(key).inserted { throw .invalidValue("option \(quoted(key)) is given twice") }
            switch (key, value.kind) {
            case ("locale", .string(let locale)):
                parsed.locale = locale
            case ("interval-seconds", _):
                guard let seconds = value.number else { throw wrongType(key, value, "a number of seconds (d)") }
                guard seconds.isFinite, intervalRange.contains(seconds) else {
                    throw .invalidValue("interval-seconds \(seconds) is outside \(intervalRange.lowerBound)...\(Int(intervalRange.upperBound))")
                }
                parsed.intervalMicros = Int64(seconds * 1_000_000)
            case ("min-percent-step", .unsignedInteger(let step)) where (1...100).contains(step):
                parsed.minimumPercentStep = Int(step)
            case ("min-percent-step", .signedInteger(let step)) where (1...100).contains(step):
                parsed.minimumPercentStep = Int(step)
            case ("min-percent-step", .unsignedInteger(let step)):
                throw .invalidValue("min-percent-step \(step) is outside 1...100")
            case ("min-percent-step", .signedInteger(let step)):
                throw .invalidValue("min-percent-step \(step) is outside 1...100")
            case ("tasks", .strings(let names)):
                var tasks = Set<TaskName>()
                for text in names { tasks.insert(try TaskName(text, limits: limits)) }
                parsed.tasks = tasks
            case ("announcements", .bool(let flag)):
                parsed.announcements = flag
            case ("changes", .bool(let flag)):
                parsed.changes = flag
            case ("locale", _): throw wrongType(key, value, "a string (s)")
            case ("min-percent-step", _): throw wrongType(key, value, "an unsigned integer (u)")
            case ("tasks", _): throw wrongType(key, value, "an array of names (as)")
            case ("announcements", _), ("changes", _): throw wrongType(key, value, "a boolean (b)")
            default:
                throw .unknownOption("option \(quoted(key)) is not known to Subscribe; accepted: \(keys.joined(separator: ", "))")
            }
        }
        if !parsed.announcements && !parsed.changes {
            throw .invalidValue("a subscription with neither announcements nor changes would receive nothing")
        }
        return parsed
    }

    public func covers(_ name: TaskName) -> Bool { tasks.isEmpty || tasks.contains(name) }

    private static func wrongType(_ key: String, _ value: OptionValue, _ expected: String) -> ProgressError {
        .invalidValue("option \(quoted(key)) expects \(expected), got type '\(value.signature)'")
    }
}
