/// The properties of a task, by their index in TaskPropertyTable.standard.
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

/// A set of task properties; cheap to union on the update hot path.
public struct TaskProperties: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init(_ property: TaskProperty) { rawValue = 1 << UInt32(property.rawValue) }
    /// The property at `index` of its table.
    public init(index: Int) { rawValue = 1 << UInt32(index) }

    /// The indices of the members, in order.
    public var indices: [Int] { (0..<32).filter { rawValue & (1 << UInt32($0)) != 0 } }

    public static let all = TaskPropertyTable.standard.all

    public static let name = TaskProperties(TaskProperty.name)
    public static let title = TaskProperties(TaskProperty.title)
    public static let state = TaskProperties(TaskProperty.state)
    public static let indeterminate = TaskProperties(TaskProperty.indeterminate)
    public static let fraction = TaskProperties(TaskProperty.fraction)
    public static let completed = TaskProperties(TaskProperty.completed)
    public static let total = TaskProperties(TaskProperty.total)
    public static let unit = TaskProperties(TaskProperty.unit)
    public static let message = TaskProperties(TaskProperty.message)
    public static let appId = TaskProperties(TaskProperty.appId)
    public static let updatesFrequently = TaskProperties(TaskProperty.updatesFrequently)
    public static let serial = TaskProperties(TaskProperty.serial)
    public static let created = TaskProperties(TaskProperty.created)
    public static let updated = TaskProperties(TaskProperty.updated)
    public static let label = TaskProperties(TaskProperty.label)
    public static let detail = TaskProperties(TaskProperty.detail)
    public static let accessibleText = TaskProperties(TaskProperty.accessibleText)
    public static let rate = TaskProperties(TaskProperty.rate)
    public static let secondsRemaining = TaskProperties(TaskProperty.secondsRemaining)
    public static let stalled = TaskProperties(TaskProperty.stalled)
    public static let lifetime = TaskProperties(TaskProperty.lifetime)
    public static let cancellable = TaskProperties(TaskProperty.cancellable)
    public static let pausable = TaskProperties(TaskProperty.pausable)
    public static let cancelRequested = TaskProperties(TaskProperty.cancelRequested)
    public static let parent = TaskProperties(TaskProperty.parent)
    public static let weight = TaskProperties(TaskProperty.weight)

    /// The properties whose values are text in some locale (Label, Detail, AccessibleText).
    public static let texts: TaskProperties = [.label, .detail, .accessibleText]

    /// The members in declaration order, so signals list properties the same way every time.
    public var members: [TaskProperty] { TaskProperty.allCases.filter { contains(TaskProperties($0)) } }
}
