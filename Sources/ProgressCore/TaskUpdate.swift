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
    /// Only through Start: re-attach a live `caller` task even though the connection it is
    /// bound to is still on the bus (the access policy refuses that otherwise).
    public var takeOver: Bool?

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
    public static let startKeys = commonKeys + ["lifetime", "parent", "take-over"]
    /// Update also takes `state`: the job's answer to a pause or cancel request.
    public static let updateKeys = commonKeys + ["state"]

    /// The states a client may request with the `state` key; the others have methods of their own.
    public static let requestableStates: [TaskState] = [.running, .paused, .cancelled]

    public enum Call: Sendable { case start, update }

    public static func parse(
        _ options: [(key: String, value: OptionValue)], for call: Call, limits: Limits = Limits()
    ) throws(ProgressError) -> TaskUpdate {
        var update = TaskUpdate()
        var reader = OptionReader(for: call == .start ? "Start" : "Update", accepting: call == .start ? startKeys : updateKeys)
        for (key, value) in options {
            try reader.admit(key)
            switch key {
            case "title": update.title = try reader.text(key, value, maxBytes: limits.maxTitleBytes)
            case "unit": update.unit = try reader.text(key, value, maxBytes: limits.maxUnitBytes)
            case "message": update.message = try reader.text(key, value, maxBytes: limits.maxMessageBytes)
            case "app-id": update.appId = try reader.text(key, value, maxBytes: limits.maxAppIdBytes)
            case "fraction": update.fraction = try validFraction(reader.number(key, value), key: key)
            case "completed": update.completed = try reader.count(key, value)
            case "total": update.total = try reader.count(key, value)
            case "indeterminate": update.indeterminate = try reader.flag(key, value)
            case "updates-frequently": update.updatesFrequently = try reader.flag(key, value)
            case "state": update.state = try requestedState(reader.text(key, value, maxBytes: 64))
            case "lifetime": update.lifetime = try reader.choice(key, value, Lifetime.self)
            // Checked as a task name by the store, with the same InvalidName as any other name.
            case "parent": update.parent = try reader.string(key, value)
            case "lease-seconds": update.leaseSeconds = try reader.whole(key, value, in: Limits.durationRange)
            case "stall-seconds": update.stallSeconds = try reader.whole(key, value, in: Limits.durationRange)
            case "linger-seconds": update.lingerSeconds = try reader.whole(key, value, in: 0...Limits.durationRange.upperBound)
            case "cancellable": update.cancellable = try reader.flag(key, value)
            case "pausable": update.pausable = try reader.flag(key, value)
            case "weight":
                let weight = try reader.number(key, value)
                guard weight.isFinite, Limits.weightRange.contains(weight) else {
                    throw .invalidValue("weight \(weight) is outside \(Limits.weightRange.lowerBound)...\(Int(Limits.weightRange.upperBound))")
                }
                update.weight = weight
            case "take-over": update.takeOver = try reader.flag(key, value)
            case "child-failure": update.childFailure = try reader.choice(key, value, ChildFailurePolicy.self)
            default: preconditionFailure("option \(key) is accepted but not read")
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
        try OptionReader.validText(text, key: key, maxBytes: maxBytes)
    }

    private static func requestedState(_ text: String) throws(ProgressError) -> TaskState {
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
}
