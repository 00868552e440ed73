import CGLib
import ProgressBus
import ProgressCore
import ProgressModel

/// A large read's bounded array (Snapshot's, SnapshotPage's, Changes', GetManagedObjects',
/// List's), written a slice of tasks at a time, so that the main loop serves other callers
/// between the slices (`LargeReadScheduler`). Written in one slice or in many, the bytes are the same.
///
/// Each slice reads the tasks as they are then: a task that changed meanwhile shows its new
/// values, one removed meanwhile is left out, and a walk in name order (`.names`) goes on
/// after the last name written, so a task started meanwhile shows if its name comes later.
/// Every write acknowledged before the read arrived is in the view of the first slice.
final class SlicedReply {
    /// Where the tasks come from.
    enum Rows {
        /// In name order, after a name ("" for the first), each with these properties.
        case names(after: String, TaskProperties)
        /// These tasks, in this order (Changes' tasks, read from the change index).
        case listed([(TaskName, TaskProperties)])
    }

    /// What one task's element is.
    enum Element {
        /// `{sa{sv}}`: the name and the properties (Snapshot, SnapshotPage, Changes).
        case byName(TaskVariants, TaskDescribing)
        /// `{oa{sa{sv}}}`: the object path, the task interface and every property (GetManagedObjects).
        case managedObject(TaskVariants, TaskDescribing)
        /// `s`: the name alone (List).
        case name
    }

    private let rows: Rows
    private let element: Element
    private let writer: SerializedVariant
    private let array: SerializedVariant.OpenArray
    /// The buffer's bound: the reply's, less room for its tuple and header.
    private let maxBytes: Int
    private let maxCount: Int
    /// The next of `.listed`'s rows, or the last name written of `.names`'.
    private var position = 0
    private var after: String
    private(set) var count = 0
    private(set) var last: TaskName?
    /// False once a task did not fit (or `maxCount` was reached with tasks left).
    private(set) var complete = true
    private(set) var done = false

    /// The room `reserveAll` makes: for the tasks expected, up to the reply's bound.
    let capacity: Int
    /// The values one task's element holds (`Element.values`), on average for `.listed`: a
    /// slice's work follows them.
    let valuesPerTask: Int
    /// The values of the tasks expected (`valuesPerTask` each).
    var expectedValues: Int {
        let (values, overflow) = expected.multipliedReportingOverflow(by: valuesPerTask)
        return overflow ? .max : values
    }
    private let expected: Int
    static let firstCapacity = 1 << 16

    /// `expected` tasks size the buffer (up to `maxBytes`): at most `firstCapacity` at the
    /// start, the rest once `reserveAll` says the reply is being written.
    init(_ rows: Rows, element: Element, maxBytes: Int, maxCount: Int = .max, expected: Int) {
        self.rows = rows
        self.element = element
        self.maxBytes = maxBytes - TaskVariants.replyMargin
        self.maxCount = maxCount
        self.expected = expected
        switch rows {
        case .names(let first, let properties):
            after = first
            valuesPerTask = element.values(properties)
        case .listed(let listed):
            after = ""
            valuesPerTask = listed.isEmpty ? 1 : listed.reduce(0) { $0 + element.values($1.1) } / listed.count
        }
        let perTask = switch element { case .name: 24; case .byName: 700; case .managedObject: 800 }
        capacity = min(expected.multipliedReportingOverflow(by: perTask).partialValue, maxBytes)
        // A read that waits for room (`LargeReadScheduler`) holds no more than its first slice.
        writer = SerializedVariant(capacity: min(capacity, Self.firstCapacity))
        array = writer.openArray(alignment: element.alignment)
    }

    /// Whether `reserveAll` made room for the whole reply.
    private(set) var reserved = false

    /// Makes room for the whole reply, before it is written past its first slice.
    func reserveAll() {
        reserved = true
        writer.reserveCapacity(capacity)
    }

    /// Writes up to `count` more tasks, read from `tasks`; true once every task is written or one did not fit.
    @discardableResult
    func writeSlice(of count: Int, from tasks: TaskView) -> Bool {
        guard !done else { return true }
        var written = 0
        switch rows {
        case .names(_, let properties):
            // Found again from the last name each slice: the table may have changed since.
            var names = tasks.names(after: after).makeIterator()
            while written < count, !done {
                guard let name = names.next() else { return finishWalk() }
                if case .name = element {
                    add(name) { writer.string(name.text) }
                } else if let task = tasks.task(name) {
                    add(name) { write(task, properties) }
                }
                written += 1
            }
        case .listed(let listed):
            while written < count, !done {
                guard position < listed.count else { return finishWalk() }
                let (name, properties) = listed[position]
                position += 1
                if let task = tasks.task(name) { add(name) { write(task, properties) } }
                written += 1
            }
        }
        return done
    }

    private func finishWalk() -> Bool {
        done = true
        return true
    }

    private func add(_ name: TaskName, _ write: () -> Void) {
        guard count < maxCount, writer.element(of: array, maxBytes: maxBytes, write) else {
            complete = false
            done = true
            return
        }
        count += 1
        last = name
        after = name.text
    }

    private func write(_ task: ProgressTask, _ properties: TaskProperties) {
        switch element {
        case .byName(let variants, let texts):
            writer.entry(key: task.name.text, valueAlignment: 8) {
                variants.write(properties, of: task, texts: texts, into: writer)
            }
        case .managedObject(let variants, let texts):
            writer.entry(key: BusNames.taskPath(task.name), valueAlignment: 8) {
                writer.array(alignment: 8) { interface in
                    interface {
                        writer.entry(key: BusNames.taskInterface, valueAlignment: 8) {
                            variants.write(properties, of: task, texts: texts, into: writer)
                        }
                    }
                }
            }
        case .name:
            writer.string(task.name.text)
        }
    }

    /// The array as a GVariant (floating), once `writeSlice` returned true.
    func make() -> OpaquePointer {
        precondition(done, "a reply is made once every slice is written")
        writer.close(array)
        return writer.make(element.arrayType)
    }
}

extension SlicedReply.Element {
    /// The values one task's element holds, as GDBus walks them to convert the reply
    /// (`Limits.maxReplyValues`): a `{sa{sv}}` is its entry, the name and the dictionary, and
    /// each property its entry, key, variant and value; a `{oa{sa{sv}}}` adds the entry, name
    /// and dictionary of the interface; a name is one value.
    func values(_ properties: TaskProperties) -> Int {
        switch self {
        case .name: 1
        case .byName: Self.taskValues(properties: properties.rawValue.nonzeroBitCount)
        case .managedObject: 3 + Self.taskValues(properties: properties.rawValue.nonzeroBitCount)
        }
    }

    /// The values of a task's `{sa{sv}}` with this many properties.
    static func taskValues(properties count: Int) -> Int { 3 + 4 * count }

    /// The values of a reply besides its tasks' and names': its tuple, the array, and Changes'
    /// serial, flag and array of removed names.
    static let valuesAround = 5

    var alignment: Int {
        if case .name = self { return 1 }
        return 8
    }

    var arrayType: String {
        switch self {
        case .byName: "a{sa{sv}}"
        case .managedObject: "a{oa{sa{sv}}}"
        case .name: "as"
        }
    }
}
