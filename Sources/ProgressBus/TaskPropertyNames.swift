import ProgressCore

/// The task properties under their D-Bus names: the API's names, as Core declares them.
extension TaskProperty {
    public var dbusName: String { name }

    public init?(dbusName: String) { self.init(name: dbusName) }
}
