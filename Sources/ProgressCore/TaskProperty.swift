/// The properties of `org.progressd.Progress1.Task`, in the order the XML declares them.
public enum TaskProperty: Int, CaseIterable, Sendable {
    case name, title, state, indeterminate, fraction, completed, total, unit, message, appId
    case updatesFrequently, serial, created, updated, label, detail, accessibleText, rate, secondsRemaining
    case stalled, lifetime, cancellable, pausable, cancelRequested, parent, weight

    public var dbusName: String {
        switch self {
        case .name: "Name"
        case .title: "Title"
        case .state: "State"
        case .indeterminate: "Indeterminate"
        case .fraction: "Fraction"
        case .completed: "Completed"
        case .total: "Total"
        case .unit: "Unit"
        case .message: "Message"
        case .appId: "AppId"
        case .updatesFrequently: "UpdatesFrequently"
        case .serial: "Serial"
        case .created: "Created"
        case .updated: "Updated"
        case .label: "Label"
        case .detail: "Detail"
        case .accessibleText: "AccessibleText"
        case .rate: "Rate"
        case .secondsRemaining: "SecondsRemaining"
        case .stalled: "Stalled"
        case .lifetime: "Lifetime"
        case .cancellable: "Cancellable"
        case .pausable: "Pausable"
        case .cancelRequested: "CancelRequested"
        case .parent: "Parent"
        case .weight: "Weight"
        }
    }

    private static let byDBusName = Dictionary(uniqueKeysWithValues: allCases.map { ($0.dbusName, $0) })

    public init?(dbusName: String) {
        guard let property = Self.byDBusName[dbusName] else { return nil }
        self = property
    }
}

/// A set of task properties; cheap to union on the update hot path.
public struct TaskProperties: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init(_ property: TaskProperty) { rawValue = 1 << UInt32(property.rawValue) }

    public static let all = TaskProperties(TaskProperty.allCases.map(TaskProperties.init))

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
