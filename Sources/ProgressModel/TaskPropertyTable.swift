/// Every task property declared once: its name in the API, how its value is read from the
/// task, what a change of it is detected by and which composed texts it changes, how it is
/// persisted, and the Start/Update option that sets it. The option parsing, the diff, the
/// record, the restore and the values on the bus are all derived from this table, so a new
/// property is one row here and its XML: a row declared with an `initial:` value keeps its
/// value in storage of its own (RowValues), in the task and in the update that sets it.
/// The standard rows keep theirs in ProgressTask's fields, which the hot paths read
/// directly; a new row needs a field only if it must be as fast as they are.
/// `@unchecked Sendable`: every stored property is a `let`, set once when the table is made
/// and never changed, and its closures capture only key paths and constants, which Swift 6.0
/// does not take to be Sendable.
public struct TaskPropertyDescriptor: @unchecked Sendable {
    public enum ChangeRule {
        /// Changed when these two values of the task differ.
        case differs((ProgressTask, ProgressTask) -> Bool)
        /// A text composed of other properties: changed when one of the rows that declare
        /// it among their `texts` changes.
        case composed
    }

    /// The property's name in the API ("Title"), under which the bus exports it.
    public let name: String
    let read: (ProgressTask, TaskDescribing) -> PropertyValue
    let change: ChangeRule
    /// The composed texts (Detail, AccessibleText) that say this property's value.
    let texts: TaskProperties
    /// Where the record keeps it (nil for what follows from other values), and the
    /// Start/Update key that sets it (nil for what only the daemon sets).
    public private(set) var setting: TaskSetting
    /// For a row that keeps its own value: which of the task's and the update's RowValues are its.
    private(set) var storage: RowIdentity?

    public init(_ name: String, read: @escaping (ProgressTask, TaskDescribing) -> PropertyValue, change: ChangeRule,
                texts: TaskProperties = [], persisted: TaskRecordField? = nil, option: TaskOption? = nil) {
        self.name = name
        self.read = read
        self.change = change
        self.texts = texts
        setting = TaskSetting(persisted: persisted, option: option)
    }

    /// A property read straight from the task, changed when the read value changes. The
    /// read is a closure, which the diff calls on every update.
    public init<Value: Equatable>(
        _ name: String, _ value: @escaping (ProgressTask) -> Value, as wrap: @escaping (Value) -> PropertyValue,
        texts: TaskProperties = [], persisted: TaskRecordField? = nil, option: TaskOption? = nil
    ) {
        self.init(
            name, read: { task, _ in wrap(value(task)) },
            change: .differs { value($0) != value($1) }, texts: texts, persisted: persisted, option: option)
    }

    /// A property that needs no field: the task keeps its value for this row, `initial`
    /// until something sets it, and `initial`'s case is its D-Bus type. `option` reads a
    /// client's value into the update (a bridge sets `update[row]`), which the store puts
    /// into the task; `persisted` is its key in the record, which keeps it once it is set.
    /// A change of it changes the row's bit and those of `texts`.
    public init(
        _ name: String, initial: PropertyValue, texts: TaskProperties = [], persisted: String? = nil,
        option: ValueOption? = nil
    ) {
        let row = RowIdentity(initial: initial)
        let current = { (task: ProgressTask) in task.rowValues[row] ?? initial }
        let record = persisted.map { key in
            TaskRecordField(key, save: { $0.rowValues[row]?.recordValue }) { task, saved in
                guard let restored = initial.restored(from: saved) else { return false }
                task.rowValues[row] = restored
                return true
            }
        }
        // The store's rules know nothing of the row: its option's applier puts the value
        // in, or, for a row no client sets, the setting's (a bridge may set it).
        let apply = { (update: TaskUpdate, task: inout ProgressTask) in
            if let value = update.rowValues[row] { task.rowValues[row] = value }
        }
        let taskOption = option.map { option in
            TaskOption(option.key, option.calls, read: { update, input in
                let value = try option.read(input)
                precondition(
                    value.hasType(of: initial), "option \(option.key) read a value of another type than \(name)'s")
                update.rowValues[row] = value
            }, apply: apply)
        }
        self.init(
            name, read: { task, _ in current(task) }, change: .differs { current($0) != current($1) }, texts: texts)
        setting = TaskSetting(persisted: record, option: taskOption, apply: taskOption == nil ? apply : nil)
        storage = row
    }
}

/// A value the job sets and the daemon keeps that no client reads as a property (timers,
/// policies), or an option that is kept nowhere (`take-over`).
/// `@unchecked Sendable`: every stored property is a `let`, set once when the table is made
/// and never changed, and its closures capture only key paths and constants, which Swift 6.0
/// does not take to be Sendable.
public struct TaskSetting: @unchecked Sendable {
    let persisted: TaskRecordField?
    public let option: TaskOption?
    /// How a value no option reads reaches the task: a bridge's, for a row that keeps its own.
    let applier: TaskOption.Applier?

    public init(persisted: TaskRecordField? = nil, option: TaskOption? = nil) {
        self.init(persisted: persisted, option: option, apply: nil)
    }

    init(persisted: TaskRecordField?, option: TaskOption?, apply: ((TaskUpdate, inout ProgressTask) -> Void)?) {
        self.persisted = persisted
        self.option = option
        applier = apply.map(TaskOption.Applier.init)
    }
}

/// The properties of a task, in the order the interface declares them; `TaskProperties`
/// bits are indices into it. A store is made with one (`TaskStore.properties`), and the
/// daemon's outputs read names and values through the store's. A class: one table, shared
/// by the store and every reader.
/// `@unchecked Sendable`: every stored property is a `let`, set once when the table is made
/// and never changed, and its closures capture only key paths and constants, which Swift 6.0
/// does not take to be Sendable.
public final class TaskPropertyTable: @unchecked Sendable {
    public let descriptors: [TaskPropertyDescriptor]
    /// What the job sets that is no property.
    public let settings: [TaskSetting]
    /// The properties compared by value, each with its bit and the bits of the texts it
    /// changes.
    private let compared: [Comparison]
    /// Every option, in the order of the rows.
    private let options: [TaskOption]
    /// The options that apply themselves, in the same order.
    private let appliers: [TaskOption.Applier]
    private let persisted: [TaskRecordField]
    /// One property compared by value: the bits it changes (its own and its texts'), and
    /// whether two tasks differ in it.
    private final class Comparison {
        let changes: UInt32
        let differs: (ProgressTask, ProgressTask) -> Bool

        init(changes: UInt32, differs: @escaping (ProgressTask, ProgressTask) -> Bool) {
            self.changes = changes
            self.differs = differs
        }
    }

    /// The keys Start and Update accept, as an error lists them.
    public let startKeys: [String]
    public let updateKeys: [String]

    public init(descriptors: [TaskPropertyDescriptor], settings: [TaskSetting] = TaskPropertyTable.standardSettings) {
        precondition(descriptors.count <= 32, "TaskProperties holds 32 properties")
        self.descriptors = descriptors
        self.settings = settings
        var compared: [Comparison] = []
        for (index, descriptor) in descriptors.enumerated() {
            guard case .differs(let differs) = descriptor.change else { continue }
            compared.append(Comparison(changes: 1 << UInt32(index) | descriptor.texts.rawValue, differs: differs))
        }
        self.compared = compared
        let allSettings = descriptors.map(\.setting) + settings
        options = allSettings.compactMap(\.option)
        precondition(Set(options.map(\.key)).count == options.count, "an option key is declared twice")
        appliers = options.compactMap(\.applier) + allSettings.compactMap(\.applier)
        persisted = allSettings.compactMap(\.persisted)
        startKeys = options.filter { $0.isAccepted(by: .start) }.map(\.key)
        updateKeys = options.filter { $0.isAccepted(by: .update) }.map(\.key)
    }

    public var all: TaskProperties {
        TaskProperties(rawValue: descriptors.count == 32 ? .max : (1 << UInt32(descriptors.count)) - 1)
    }

    public func index(named name: String) -> Int? { descriptors.firstIndex { $0.name == name } }

    public func value(at index: Int, of task: ProgressTask, describing texts: TaskDescribing) -> PropertyValue {
        descriptors[index].read(task, texts)
    }

    /// The properties whose client-visible values differ between the two.
    public func differences(_ task: ProgressTask, _ other: ProgressTask) -> TaskProperties {
        var changed: UInt32 = 0
        for row in compared where row.differs(task, other) { changed |= row.changes }
        return TaskProperties(rawValue: changed)
    }

    /// The keys of one Start or Update call, each read by its row's option.
    public func parse(
        _ options: [(key: String, value: OptionValue)], for call: TaskUpdate.Call, limits: Limits
    ) throws(ProgressError) -> TaskUpdate {
        var update = TaskUpdate()
        var reader = OptionReader(
            for: call == .start ? "Start" : "Update", accepting: call == .start ? startKeys : updateKeys)
        for (key, value) in options {
            try reader.admit(key)
            for option in self.options where option.key == key {
                do {
                    try option.read(&update, OptionInput(key: key, value: value, limits: limits))
                } catch {
                    throw error as! ProgressError  // what OptionInput and TaskUpdate's checks throw
                }
                break
            }
        }
        return update
    }

    /// Puts the values of `update` that need no rule of the store's into `task`.
    package func applySettings(_ update: TaskUpdate, to task: inout ProgressTask) {
        for applier in appliers { applier.apply(update, &task) }
    }

    /// What the state directory keeps of the task: its fields, its owner when that is not
    /// the host (a sandboxed app keeps its tasks across a restart), and while it is live the
    /// connection it is bound to, with that connection's process (`TaskBinding`). None for
    /// a system job: its service is the truth, and the bridge reads it again after a restart.
    public func persistedRecord(of task: ProgressTask) -> TaskRecord? {
        guard task.owner != .system else { return nil }
        var record = record(of: task)
        if task.owner != .host { record.fields["owner"] = .string(task.owner.recordText) }
        if task.isLive, let bound = task.boundConnection { TaskBinding.save(bound, into: &record) }
        return record
    }

    /// What the state directory keeps of the task's properties.
    public func record(of task: ProgressTask) -> TaskRecord {
        var fields: [String: RecordValue] = [:]
        for field in persisted {
            if let value = field.save(task) { fields[field.key] = value }
        }
        return TaskRecord(fields: fields)
    }

    /// Puts a record's values into `task`; the keys whose values have the wrong type.
    package func restore(_ record: TaskRecord, into task: inout ProgressTask) -> [String] {
        var wrong: [String] = []
        for field in persisted {
            guard let value = record.fields[field.key] else { continue }
            if !field.restore(&task, value) { wrong.append(field.key) }
        }
        return wrong
    }
}
