/// The options of a Changes poll: which properties, in which locale.
public struct ChangesOptions: Sendable, Equatable {
    /// Every property when the caller names none.
    public var properties = TaskProperties.all
    /// "" for the daemon's locale; checked by the caller, which knows the locales.
    public var locale = ""

    public static let keys = ["properties", "locale"]

    public init() {}

    public static func parse(_ options: [(key: String, value: OptionValue)]) throws(ProgressError) -> ChangesOptions {
        var parsed = ChangesOptions()
        var reader = OptionReader(for: "Changes", accepting: keys)
        for (key, value) in options {
            try reader.admit(key)
            switch key {
            case "properties":
                let names = try reader.strings(key, value, of: "property names")
                let table = TaskPropertyTable.standard
                let unknown = names.filter { table.index(named: $0) == nil }
                if !unknown.isEmpty {
                    throw .unknownOption(
                        "properties \(unknown.map { quoted($0) }.joined(separator: ", ")) do not exist; "
                            + "the task properties are "
                            + table.descriptors.map(\.name).joined(separator: ", "))
                }
                parsed.properties = names.compactMap(table.index(named:))
                    .reduce([]) { $0.union(TaskProperties(index: $1)) }
            case "locale": parsed.locale = try reader.text(key, value)
            default: preconditionFailure("option \(key) is accepted but not read")
            }
        }
        return parsed
    }
}
