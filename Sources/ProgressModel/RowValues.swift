/// The values of the properties that keep their own storage (TaskPropertyDescriptor's
/// `initial:` rows) instead of a field of ProgressTask, by row: a task's, and an update's
/// for what a client or a bridge set. A new property needs no field anywhere.
///
/// The standard table declares no such row, so every task and update holds an empty one,
/// which allocates nothing: an empty array is a shared constant. A few rows at most are
/// expected, so a list searched by identity beats a dictionary's hashing.
public struct RowValues: Sendable, Equatable {
    private var entries: [Entry] = []

    private struct Entry: Sendable {
        let row: RowIdentity
        var value: PropertyValue
    }

    public init() {}

    public var isEmpty: Bool { entries.isEmpty }

    subscript(row: RowIdentity) -> PropertyValue? {
        get {
            for entry in entries where entry.row === row { return entry.value }
            return nil
        }
        set {
            let index = entries.firstIndex { $0.row === row }
            switch (index, newValue) {
            case (let index?, let value?): entries[index].value = value
            case (let index?, nil): entries.remove(at: index)
            case (nil, let value?): entries.append(Entry(row: row, value: value))
            case (nil, nil): break
            }
        }
    }

    /// The same rows with the same values, in any order (an update's follow the call's keys).
    public static func == (a: RowValues, b: RowValues) -> Bool {
        a.entries.count == b.entries.count && a.entries.allSatisfy { b[$0.row] == $0.value }
    }
}

/// What tells one row's stored value from another's: made once with the row, so every
/// table built from the row finds the same values.
final class RowIdentity: Sendable {
    /// The row's value until one is set, which fixes the value's type.
    let initial: PropertyValue

    init(initial: PropertyValue) {
        self.initial = initial
    }
}

extension PropertyValue {
    /// Whether the two are of one D-Bus type: a stored row's value keeps its initial one's.
    public func hasType(of other: PropertyValue) -> Bool {
        switch (self, other) {
        case (.string, .string), (.double, .double), (.bool, .bool), (.uint64, .uint64), (.int64, .int64): true
        default: false
        }
    }

    /// The value as a record keeps it.
    var recordValue: RecordValue {
        switch self {
        case .string(let text): .string(text)
        case .double(let number): .double(number)
        case .bool(let flag): .bool(flag)
        case .uint64(let number): Int64(exactly: number).map(RecordValue.integer) ?? .unsigned(number)
        case .int64(let number): .integer(number)
        }
    }

    /// A record's value read as a value of this one's type; nil when it has another type.
    func restored(from record: RecordValue) -> PropertyValue? {
        switch self {
        case .string: record.string.map(PropertyValue.string)
        case .double: record.double.map(PropertyValue.double)
        case .bool: record.bool.map(PropertyValue.bool)
        case .uint64: record.uint64.map(PropertyValue.uint64)
        case .int64: record.int64.map(PropertyValue.int64)
        }
    }
}
