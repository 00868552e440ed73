/// The keys of a Start or Update call, each parsed and checked on its own.
/// Checks that need the task's current values (completed against total, allowed
/// state changes) happen when the store applies the update.
public struct TaskUpdate: Sendable, Equatable {
    public var title: String?
    public var fraction: Double?
    public var completed: UInt64?
    public var total: UInt64?
    public var unit: String?
    public var indeterminate: Bool?
    public var message: String?
    public var appId: String?
    public var updatesFrequently: Bool?
    /// Only through Update: `running`, `paused` or `cancelled`.
    public var state: TaskState?
    /// Only through Start.
    public var lifetime: Lifetime?
    public var leaseSeconds: UInt32?
    public var stallSeconds: UInt32?
    public var lingerSeconds: UInt32?
    public var cancellable: Bool?
    public var pausable: Bool?
    /// Only through Start: the parent's name, checked by the store.
    public var parent: String?
    public var weight: Double?
    public var childFailure: ChildFailurePolicy?

    /// Whether the update sets the task's value (which a parent's children own).
    var setsValue: Bool { fraction != nil || completed != nil || total != nil }

    public init() {}

    /// Keys that Start and Update both accept.
    static let commonKeys = [
        "title", "fraction", "completed", "total", "unit", "indeterminate", "message", "app-id",
        "updates-frequently", "lease-seconds", "stall-seconds", "linger-seconds", "cancellable", "pausable",
        "weight", "child-failure",
    ]
    /// Start also takes what fixes the task's place and life: `lifetime` and `parent`.
    public static let startKeys = commonKeys + ["lifetime", "parent"]
    /// Update also takes `state`: the job's answer to a pause or cancel request.
    public static let updateKeys = commonKeys + ["state"]

    /// The states a client may request with the `state` key; the others have methods of their own.
    public static let requestableStates: [TaskState] = [.running, .paused, .cancelled]

    public enum Call: Sendable { case start, update }

    public static func parse(
        _ options: [(key: String, value: OptionValue)], for call: Call, limits: Limits = Limits()
    ) throws(ProgressError) -> TaskUpdate {
        var update = TaskUpdate()
        var seen = Set<String>()
        for (key, value) in options {
            if !seen.insert(key).inserted {
                throw .invalidValue("option \(quoted(key)) is given twice")
            }
            switch key {
            case "title": update.title = try text(key, value, maxBytes: limits.maxTitleBytes)
            case "unit": update.unit = try text(key, value, maxBytes: limits.maxUnitBytes)
            case "message": update.message = try text(key, value, maxBytes: limits.maxMessageBytes)
            case "app-id": update.appId = try text(key, value, maxBytes: limits.maxAppIdBytes)
            case "fraction": update.fraction = try validFraction(number(key, value), key: key)
            case "completed": update.completed = try count(key, value)
            case "total": update.total = try count(key, value)
            case "indeterminate": update.indeterminate = try flag(key, value)
            case "updates-frequently": update.updatesFrequently = try flag(key, value)
            case "state" where call == .update: update.state = try requestedState(value)
            case "lifetime" where call == .start: update.lifetime = try choice(key, value, Lifetime.self)
            // Checked as a task name by the store, with the same InvalidName as any other name.
            case "parent" where call == .start: update.parent = try text(key, value, maxBytes: .max)
            case "lease-seconds": update.leaseSeconds = try seconds(key, value, in: Limits.durationRange)
            case "stall-seconds": update.stallSeconds = try seconds(key, value, in: Limits.durationRange)
            case "linger-seconds": update.lingerSeconds = try seconds(key, value, in: 0...Limits.durationRange.upperBound)
            case "cancellable": update.cancellable = try flag(key, value)
            case "pausable": update.pausable = try flag(key, value)
            case "weight":
                let weight = try number(key, value)
                guard weight.isFinite, Limits.weightRange.contains(weight) else {
                    throw .invalidValue("weight \(weight) is outside \(Limits.weightRange.lowerBound)...\(Int(Limits.weightRange.upperBound))")
                }
                update.weight = weight
            case "child-failure": update.childFailure = try choice(key, value, ChildFailurePolicy.self)
            default:
                let accepted = (call == .start ? startKeys : updateKeys).joined(separator: ", ")
                throw .unknownOption("option \(quoted(key)) is not known to \(call == .start ? "Start" : "Update"); accepted: \(accepted)")
            }
        }
        return update
    }

    /// Checks a fraction from any call (the `fraction` key or SetFraction).
    public static func validFraction(_ value: Double, key: String = "fraction") throws(ProgressError) -> Double {
        guard value.isFinite, value >= 0, value <= 1 else {
            throw .invalidValue("\(key) \(value) is outside 0...1 (NaN and infinities are refused)")
        }
        return value
    }

    /// Checks free text from any call (option values and Fail's message).
    public static func validText(_ text: String, key: String, maxBytes: Int) throws(ProgressError) -> String {
        let bytes = text.utf8.count
        if bytes > maxBytes {
            throw .limitExceeded("\(key) is \(bytes) bytes; the limit is \(maxBytes): \(quoted(text))")
        }
        return text
    }

    private static func text(_ key: String, _ value: OptionValue, maxBytes: Int) throws(ProgressError) -> String {
        guard case .string(let text) = value.kind else { throw wrongType(key, value, expected: "a string (s)") }
        return try validText(text, key: key, maxBytes: maxBytes)
    }

    /// Doubles accept integers too: `gdbus call` writes `<1>` as an int32.
    private static func number(_ key: String, _ value: OptionValue) throws(ProgressError) -> Double {
        guard let number = value.number else { throw wrongType(key, value, expected: "a number (d)") }
        return number
    }

    /// Counts accept every integer type, for the same reason, but never a negative one.
    private static func count(_ key: String, _ value: OptionValue) throws(ProgressError) -> UInt64 {
        switch value.kind {
        case .unsignedInteger(let number): return number
        case .signedInteger(let number) where number >= 0: return UInt64(number)
        case .signedInteger(let number): throw .invalidValue("\(key) \(number) is negative")
        default: throw wrongType(key, value, expected: "an unsigned integer (t)")
        }
    }

    private static func seconds(_ key: String, _ value: OptionValue, in range: ClosedRange<UInt32>) throws(ProgressError) -> UInt32 {
        let seconds = try count(key, value)
        guard seconds >= UInt64(range.lowerBound), seconds <= UInt64(range.upperBound) else {
            throw .invalidValue("\(key) \(seconds) is outside \(range.lowerBound)...\(range.upperBound)")
        }
        return UInt32(seconds)
    }

    private static func choice<Choice: RawRepresentable & CaseIterable>(
        _ key: String, _ value: OptionValue, _ type: Choice.Type
    ) throws(ProgressError) -> Choice where Choice.RawValue == String {
        let text = try text(key, value, maxBytes: 64)
        guard let choice = Choice(rawValue: text) else {
            let accepted = Choice.allCases.map(\.rawValue).joined(separator: ", ")
            throw .invalidValue("\(key) \(quoted(text)) is not one of \(accepted)")
        }
        return choice
    }

    private static func flag(_ key: String, _ value: OptionValue) throws(ProgressError) -> Bool {
        guard case .bool(let flag) = value.kind else { throw wrongType(key, value, expected: "a boolean (b)") }
        return flag
    }

    private static func requestedState(_ value: OptionValue) throws(ProgressError) -> TaskState {
        guard case .string(let text) = value.kind else { throw wrongType("state", value, expected: "a string (s)") }
        guard let state = TaskState(rawValue: text), requestableStates.contains(state) else {
            let hint = switch TaskState(rawValue: text) {
            case .finished: " (call Finish)"
            case .failed: " (call Fail)"
            default: ""
            }
            throw .invalidValue(
                "state \(quoted(text)) can not be set with Update\(hint); accepted: running, paused, cancelled")
        }
        return state
    }

    private static func wrongType(_ key: String, _ value: OptionValue, expected: String) -> ProgressError {
        .invalidValue("option \(quoted(key)) expects \(expected), got type '\(value.signature)'")
    }
}
