/// What the daemon keeps of a task across restarts: the persisted fields of
/// TaskPropertyTable, by key. Codable as one JSON object, so the state directory can write
/// it; Core itself does no I/O. Connections are not kept: they die with the daemon.
public struct TaskRecord: Codable, Equatable, Sendable {
    public var fields: [String: RecordValue]

    public init(fields: [String: RecordValue]) {
        self.fields = fields
    }

    /// The task's name, which identifies the record in the journal.
    public var name: String { fields["name"]?.string ?? "" }

    public init(from decoder: Decoder) throws {
        fields = try decoder.singleValueContainer().decode([String: RecordValue].self)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(fields)
    }
}

/// One persisted value, as JSON has it. JSON does not tell 1.0 from 1, so numbers are
/// equal when their values are.
public enum RecordValue: Codable, Equatable, Sendable {
    case bool(Bool)
    case integer(Int64)
    /// An unsigned integer above Int64's range.
    case unsigned(UInt64)
    case double(Double)
    case string(String)

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let flag = try? container.decode(Bool.self) { self = .bool(flag) }
        else if let number = try? container.decode(Int64.self) { self = .integer(number) }
        else if let number = try? container.decode(UInt64.self) { self = .unsigned(number) }
        else if let number = try? container.decode(Double.self) { self = .double(number) }
        else { self = .string(try container.decode(String.self)) }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .bool(let flag): try container.encode(flag)
        case .integer(let number): try container.encode(number)
        case .unsigned(let number): try container.encode(number)
        case .double(let number): try container.encode(number)
        case .string(let text): try container.encode(text)
        }
    }

    public static func == (a: RecordValue, b: RecordValue) -> Bool {
        switch (a, b) {
        case (.bool(let x), .bool(let y)): x == y
        case (.string(let x), .string(let y)): x == y
        case (.integer(let x), .integer(let y)): x == y
        case (.unsigned(let x), .unsigned(let y)): x == y
        case (.integer(let x), .unsigned(let y)), (.unsigned(let y), .integer(let x)): x >= 0 && UInt64(x) == y
        case (.double(let x), _): b.double == x
        case (_, .double(let y)): a.double == y
        default: false
        }
    }

    public var string: String? { if case .string(let text) = self { text } else { nil } }
    public var bool: Bool? { if case .bool(let flag) = self { flag } else { nil } }
    /// JSON writes 1.0 as 1, so a double may come back as an integer.
    public var double: Double? {
        switch self {
        case .double(let number): number
        case .integer(let number): Double(number)
        case .unsigned(let number): Double(number)
        default: nil
        }
    }
    public var uint64: UInt64? {
        switch self {
        case .integer(let number) where number >= 0: UInt64(number)
        case .unsigned(let number): number
        default: nil
        }
    }
    public var int64: Int64? { if case .integer(let number) = self { number } else { nil } }
}

/// How one value of a task is kept in its record.
/// `@unchecked Sendable`: every stored property is a `let`, set once when the table is made
/// and never changed, and its closures capture only key paths and constants, which Swift 6.0
/// does not take to be Sendable.
public struct TaskRecordField: @unchecked Sendable {
    public let key: String
    /// nil leaves the key out (an absent parent).
    let save: (ProgressTask) -> RecordValue?
    /// False when the value has the wrong type.
    package let restore: (inout ProgressTask, RecordValue) -> Bool

    init(
        _ key: String, save: @escaping (ProgressTask) -> RecordValue?,
        restore: @escaping (inout ProgressTask, RecordValue) -> Bool
    ) {
        self.key = key
        self.save = save
        self.restore = restore
    }

    static func text(_ key: String, _ path: WritableKeyPath<ProgressTask, String>) -> TaskRecordField {
        TaskRecordField(key, save: { .string($0[keyPath: path]) }) { task, value in
            guard let text = value.string else { return false }
            task[keyPath: path] = text
            return true
        }
    }

    static func flag(_ key: String, _ path: WritableKeyPath<ProgressTask, Bool>) -> TaskRecordField {
        TaskRecordField(key, save: { .bool($0[keyPath: path]) }) { task, value in
            guard let flag = value.bool else { return false }
            task[keyPath: path] = flag
            return true
        }
    }

    static func number(_ key: String, _ path: WritableKeyPath<ProgressTask, Double>) -> TaskRecordField {
        TaskRecordField(key, save: { .double($0[keyPath: path]) }) { task, value in
            guard let number = value.double else { return false }
            task[keyPath: path] = number
            return true
        }
    }

    static func count<Count: FixedWidthInteger>(
        _ key: String, _ path: WritableKeyPath<ProgressTask, Count>
    ) -> TaskRecordField {
        TaskRecordField(key, save: { task in
            let value = task[keyPath: path]
            return value < 0
                ? .integer(Int64(value))
                : Int64(exactly: value).map(RecordValue.integer) ?? .unsigned(UInt64(value))
        }) { task, value in
            let converted: Count? = switch value {
            case .integer(let number): Count(exactly: number)
            case .unsigned(let number): Count(exactly: number)
            default: nil
            }
            guard let converted else { return false }
            task[keyPath: path] = converted
            return true
        }
    }

    static func choice<Choice: RawRepresentable>(
        _ key: String, _ path: WritableKeyPath<ProgressTask, Choice>
    ) -> TaskRecordField where Choice.RawValue == String {
        TaskRecordField(key, save: { .string($0[keyPath: path].rawValue) }) { task, value in
            guard let choice = value.string.flatMap(Choice.init(rawValue:)) else { return false }
            task[keyPath: path] = choice
            return true
        }
    }
}
