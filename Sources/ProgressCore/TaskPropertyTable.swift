/// Every task property declared once: its name in the API, how a client's value is read,
/// what a change of it is detected by (or which properties a composed text follows), and
/// how it is persisted. The diff, the record, the restore and the values on the bus are
/// all derived from this table, so a new property is one entry here (plus its case in
/// TaskProperty and its XML).
public struct TaskPropertyDescriptor: @unchecked Sendable {
    public enum ChangeRule {
        /// Changed when these two values of the task differ.
        case differs((ProgressTask, ProgressTask) -> Bool)
        /// A text composed of other properties (by name): changed when any of them is.
        case composed(of: [String])
    }

    /// The property's name in the API ("Title"), under which the bus exports it.
    public let name: String
    let read: (ProgressTask, TaskDescribing) -> PropertyValue
    let change: ChangeRule
    /// Where the record keeps it; nil for what follows from other values.
    let persisted: TaskRecordField?

    init(_ name: String, read: @escaping (ProgressTask, TaskDescribing) -> PropertyValue, change: ChangeRule,
         persisted: TaskRecordField? = nil) {
        self.name = name
        self.read = read
        self.change = change
        self.persisted = persisted
    }

    /// A property read straight from the task, changed when the read value changes. A
    /// closure, not a key path: the diff runs on every update, and a key path's projection
    /// through the runtime cost a tenth of a SetFraction.
    init<Value: Equatable>(
        _ name: String, _ value: @escaping (ProgressTask) -> Value, as wrap: @escaping (Value) -> PropertyValue,
        persisted: TaskRecordField? = nil
    ) {
        self.init(
            name, read: { task, _ in wrap(value(task)) },
            change: .differs { value($0) != value($1) }, persisted: persisted)
    }
}

/// The properties of a task, in the order the interface declares them; `TaskProperties`
/// bits are indices into it.
public struct TaskPropertyTable: @unchecked Sendable {
    public let descriptors: [TaskPropertyDescriptor]
    /// Record fields that no client reads as a property (timers, policies).
    let storedOnly: [TaskRecordField]
    /// For each composed text, the bits it follows.
    private let composed: [(index: Int, follows: TaskProperties)]
    private let compared: [(index: Int, differs: (ProgressTask, ProgressTask) -> Bool)]

    public init(descriptors: [TaskPropertyDescriptor], storedOnly: [TaskRecordField] = TaskPropertyTable.storedOnlyFields) {
        precondition(descriptors.count <= 32, "TaskProperties holds 32 properties")
        self.descriptors = descriptors
        self.storedOnly = storedOnly
        let index = Dictionary(uniqueKeysWithValues: descriptors.enumerated().map { ($0.element.name, $0.offset) })
        var composed: [(Int, TaskProperties)] = []
        var compared: [(Int, (ProgressTask, ProgressTask) -> Bool)] = []
        for (offset, descriptor) in descriptors.enumerated() {
            switch descriptor.change {
            case .differs(let differs): compared.append((offset, differs))
            case .composed(let names):
                composed.append((offset, TaskProperties(rawValue: names.reduce(0) { $0 | (1 << UInt32(index[$1]!)) })))
            }
        }
        self.composed = composed
        self.compared = compared
    }

    public var all: TaskProperties { TaskProperties(rawValue: descriptors.count == 32 ? .max : (1 << UInt32(descriptors.count)) - 1) }

    public func index(named name: String) -> Int? { descriptors.firstIndex { $0.name == name } }

    public func value(at index: Int, of task: ProgressTask, describing texts: TaskDescribing) -> PropertyValue {
        descriptors[index].read(task, texts)
    }

    /// The properties whose client-visible values differ between the two.
    public func differences(_ task: ProgressTask, _ other: ProgressTask) -> TaskProperties {
        var changed: UInt32 = 0
        for (index, differs) in compared where differs(task, other) { changed |= 1 << UInt32(index) }
        for (index, follows) in composed where changed & follows.rawValue != 0 { changed |= 1 << UInt32(index) }
        return TaskProperties(rawValue: changed)
    }

    /// What the state directory keeps of the task.
    public func record(of task: ProgressTask) -> TaskRecord {
        var fields: [String: RecordValue] = [:]
        for field in descriptors.compactMap(\.persisted) + storedOnly {
            if let value = field.save(task) { fields[field.key] = value }
        }
        return TaskRecord(fields: fields)
    }

    /// Puts a record's values into `task`; the keys whose values have the wrong type.
    func restore(_ record: TaskRecord, into task: inout ProgressTask) -> [String] {
        var wrong: [String] = []
        for field in descriptors.compactMap(\.persisted) + storedOnly {
            guard let value = record.fields[field.key] else { continue }
            if !field.restore(&task, value) { wrong.append(field.key) }
        }
        return wrong
    }
}
