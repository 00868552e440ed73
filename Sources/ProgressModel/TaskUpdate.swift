/// The keys of a Start or Update call, each parsed and checked on its own (by the options
/// of TaskPropertyTable's rows); a bridge fills one in directly.
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
    /// Only from a bridge whose service refused a cancel: CancelRequested goes back to false,
    /// so that the next RequestCancel asks the service again.
    public var withdrawsCancelRequest = false
    /// The values of the rows that keep their own (`self[row]`).
    var rowValues = RowValues()

    /// Whether the update sets the task's value (which a parent's children own).
    package var setsValue: Bool { fraction != nil || completed != nil || total != nil }

    public init() {}

    /// The value this update sets for a row that keeps its own (declared with `initial:`),
    /// as a row's option reads it or a bridge sets it; nil leaves the task's as it is. A
    /// row that keeps its value in a field is set through the field (`title`).
    public subscript(row: TaskPropertyDescriptor) -> PropertyValue? {
        get { row.storage.flatMap { rowValues[$0] } }
        set {
            guard let storage = row.storage else {
                preconditionFailure("\(row.name) is set through its field of TaskUpdate")
            }
            precondition(
                newValue.map { $0.hasType(of: storage.initial) } ?? true,
                "\(row.name) takes values of the type of \(storage.initial)")
            rowValues[storage] = newValue
        }
    }

    /// Keys Start accepts, and those Update accepts: the options of TaskPropertyTable.standard.
    public static var startKeys: [String] { TaskPropertyTable.standard.startKeys }
    public static var updateKeys: [String] { TaskPropertyTable.standard.updateKeys }

    /// The states a client may request with the `state` key; the others have methods of their own.
    public static let requestableStates: [TaskState] = [.running, .paused, .cancelled]

    public enum Call: Sendable { case start, update }

    /// The keys of a Start or Update call, each read by its option in `properties`.
    public static func parse(
        _ options: [(key: String, value: OptionValue)], for call: Call, limits: Limits = Limits(),
        properties: TaskPropertyTable = .standard
    ) throws(ProgressError) -> TaskUpdate {
        try properties.parse(options, for: call, limits: limits)
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

    static func requestedState(_ text: String) throws(ProgressError) -> TaskState {
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
