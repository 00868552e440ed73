/// The properties of a task that Swift code names, by their index in TaskPropertyTable.standard
/// (a row the code never names needs no case: TaskProperties holds any index of its table).
public enum TaskProperty: Int, CaseIterable, Sendable {
    case name, title, state, indeterminate, fraction, completed, total, unit, message, appId
    case updatesFrequently, serial, created, updated, label, detail, accessibleText, rate, secondsRemaining
    case stalled, lifetime, cancellable, pausable, cancelRequested, parent, weight

    /// The property's name in the API ("Title"), as TaskPropertyTable declares it.
    public var name: String { TaskPropertyTable.standard.descriptors[rawValue].name }

    private static let byName = Dictionary(uniqueKeysWithValues: allCases.map { ($0.name, $0) })

    public init?(name: String) {
        guard let property = Self.byName[name] else { return nil }
        self = property
    }
}

/// A set of task properties, one bit per index of their table; cheap to union on the
/// update hot path. Written as a list of TaskProperty (`[.title, .message]`).
public struct TaskProperties: SetAlgebra, Sendable, Hashable {
    public typealias Element = TaskProperty
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init() { rawValue = 0 }
    public init(_ property: TaskProperty) { rawValue = 1 << UInt32(property.rawValue) }
    /// The property at `index` of its table.
    public init(index: Int) { rawValue = 1 << UInt32(index) }
    public init(arrayLiteral properties: TaskProperty...) {
        rawValue = properties.reduce(0) { $0 | 1 << UInt32($1.rawValue) }
    }

    public static let all = TaskPropertyTable.standard.all

    /// The indices of the members, in order, read off the bits without building an array:
    /// a Snapshot walks them for every task.
    public var indices: MemberIndices { MemberIndices(bits: rawValue) }

    public struct MemberIndices: Sequence, IteratorProtocol {
        var bits: UInt32

        public mutating func next() -> Int? {
            guard bits != 0 else { return nil }
            defer { bits &= bits - 1 }
            return bits.trailingZeroBitCount
        }
    }

    /// The members in declaration order, so signals list properties the same way every time.
    public var members: [TaskProperty] { TaskProperty.allCases.filter { contains($0) } }

    public var isEmpty: Bool { rawValue == 0 }
    public func contains(_ property: TaskProperty) -> Bool { rawValue & 1 << UInt32(property.rawValue) != 0 }
    public func isSuperset(of other: TaskProperties) -> Bool { rawValue & other.rawValue == other.rawValue }
    public func isDisjoint(with other: TaskProperties) -> Bool { rawValue & other.rawValue == 0 }
    public func union(_ other: TaskProperties) -> TaskProperties {
        TaskProperties(rawValue: rawValue | other.rawValue)
    }
    public func intersection(_ other: TaskProperties) -> TaskProperties {
        TaskProperties(rawValue: rawValue & other.rawValue)
    }
    public func symmetricDifference(_ other: TaskProperties) -> TaskProperties {
        TaskProperties(rawValue: rawValue ^ other.rawValue)
    }
    public func subtracting(_ other: TaskProperties) -> TaskProperties {
        TaskProperties(rawValue: rawValue & ~other.rawValue)
    }

    @discardableResult
    public mutating func insert(_ property: TaskProperty) -> (inserted: Bool, memberAfterInsert: TaskProperty) {
        let inserted = !contains(property)
        self = union(TaskProperties(property))
        return (inserted, property)
    }

    @discardableResult
    public mutating func remove(_ property: TaskProperty) -> TaskProperty? {
        guard contains(property) else { return nil }
        self = subtracting(TaskProperties(property))
        return property
    }

    @discardableResult
    public mutating func update(with property: TaskProperty) -> TaskProperty? {
        let present = contains(property)
        insert(property)
        return present ? property : nil
    }

    public mutating func formUnion(_ other: TaskProperties) { self = union(other) }
    public mutating func formIntersection(_ other: TaskProperties) { self = intersection(other) }
    public mutating func formSymmetricDifference(_ other: TaskProperties) { self = symmetricDifference(other) }
}
