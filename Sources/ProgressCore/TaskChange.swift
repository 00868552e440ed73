/// What a store mutation did, for the bus adapter to turn into a reply and signals.
public struct TaskChange: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A new task: its object appears (InterfacesAdded).
        case created
        /// Properties of an existing task changed (PropertiesChanged, maybe coalesced).
        case updated
        /// The task is gone (InterfacesRemoved).
        case removed
    }

    public let name: TaskName
    public let kind: Kind
    /// The properties whose values changed; empty when the call changed nothing.
    public let properties: TaskProperties
    /// A change of state or of determinate/indeterminate mode, which is never coalesced:
    /// it goes out at once, after anything still pending for the task.
    public let isImmediate: Bool

    public init(name: TaskName, kind: Kind, properties: TaskProperties, isImmediate: Bool) {
        self.name = name
        self.kind = kind
        self.properties = properties
        self.isImmediate = isImmediate
    }

    public var isEmpty: Bool { kind == .updated && properties.isEmpty }
}
