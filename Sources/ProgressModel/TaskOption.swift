/// How one key of a Start or Update call is read, which of the two calls take it, and how
/// its value reaches the task. Declared on the row of the property it sets (or of the kept
/// setting, such as `lease-seconds`), so that the keys the calls accept, their parsing and
/// their application all follow from TaskPropertyTable.
/// `@unchecked Sendable`: every stored property is a `let`, set once when the table is made
/// and never changed, and its closures capture only key paths and constants, which Swift 6.0
/// does not take to be Sendable.
public struct TaskOption: @unchecked Sendable {
    public enum Calls: Sendable { case both, start, update }

    /// The key in the call's a{sv} ("app-id").
    public let key: String
    public let calls: Calls
    /// Reads the client's value into the update, with the value's own checks; checks that
    /// need the task (completed against total, allowed state changes) are TaskStore's.
    /// It throws only ProgressError (OptionInput's); untyped so that a row's closure needs
    /// no annotation.
    let read: (inout TaskUpdate, OptionInput) throws -> Void
    /// Puts the update's value into the task; nil for the values TaskStore's rules apply
    /// (state, fraction and counts, lifetime, parent).
    let applier: Applier?

    /// The function that puts the option's value into a task (TaskPropertyTable's appliers).
    struct Applier {
        let apply: (TaskUpdate, inout ProgressTask) -> Void
    }

    /// An option whose value TaskStore's rules apply.
    public init(_ key: String, _ calls: Calls = .both, read: @escaping (inout TaskUpdate, OptionInput) throws -> Void) {
        self.init(key, calls, read: read, applier: nil)
    }

    /// An option whose value `apply` puts into the task.
    public init(
        _ key: String, _ calls: Calls = .both, read: @escaping (inout TaskUpdate, OptionInput) throws -> Void,
        apply: @escaping (TaskUpdate, inout ProgressTask) -> Void
    ) {
        self.init(key, calls, read: read, applier: Applier(apply: apply))
    }

    private init(
        _ key: String, _ calls: Calls, read: @escaping (inout TaskUpdate, OptionInput) throws -> Void, applier: Applier?
    ) {
        self.key = key
        self.calls = calls
        self.read = read
        self.applier = applier
    }

    func isAccepted(by call: TaskUpdate.Call) -> Bool {
        switch (calls, call) {
        case (.both, _), (.start, .start), (.update, .update): true
        default: false
        }
    }
}

/// The option of a row that keeps its own value (TaskPropertyDescriptor's `initial:`
/// rows): its key, the calls that take it, and how a client's value is read, with its
/// checks, as a value of the row's type. Where it goes and how it applies follow from the row.
/// `@unchecked Sendable`: every stored property is a `let`, set once when the table is made
/// and never changed, and its closures capture only key paths and constants, which Swift 6.0
/// does not take to be Sendable.
public struct ValueOption: @unchecked Sendable {
    public let key: String
    public let calls: TaskOption.Calls
    /// Throws only ProgressError (OptionInput's), as TaskOption's `read`.
    let read: (OptionInput) throws -> PropertyValue

    public init(
        _ key: String, _ calls: TaskOption.Calls = .both, read: @escaping (OptionInput) throws -> PropertyValue
    ) {
        self.key = key
        self.calls = calls
        self.read = read
    }
}

/// One option's value with its key and the reader's checks, as a TaskOption reads it.
public struct OptionInput {
    /// The reader's checks depend only on the key and the value (what the call accepts is
    /// checked before): one reader serves every input, and no copy of the call's is made.
    private static let reader = OptionReader(for: "", accepting: [])
    private var reader: OptionReader { Self.reader }
    public let key: String
    public let value: OptionValue
    public let limits: Limits

    public func text(maxBytes: Int) throws(ProgressError) -> String { try reader.text(key, value, maxBytes: maxBytes) }
    public func string() throws(ProgressError) -> String { try reader.string(key, value) }
    public func flag() throws(ProgressError) -> Bool { try reader.flag(key, value) }
    public func number() throws(ProgressError) -> Double { try reader.number(key, value) }
    public func count() throws(ProgressError) -> UInt64 { try reader.count(key, value) }
    public func whole<Number: FixedWidthInteger>(in range: ClosedRange<Number>) throws(ProgressError) -> Number {
        try reader.whole(key, value, in: range)
    }
    public func choice<Choice: RawRepresentable & CaseIterable>(_ type: Choice.Type) throws(ProgressError) -> Choice
    where Choice.RawValue == String {
        try reader.choice(key, value, type)
    }
}
