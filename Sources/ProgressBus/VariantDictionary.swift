import ProgressModel

/// An a{sv} read once (`Variant.options`), then looked up by name: each getter gives the
/// first entry of that name when it holds that kind of value, and nil otherwise, so a peer's
/// missing or mistyped property reads as absent.
public struct VariantDictionary {
    public let entries: [(key: String, value: OptionValue)]

    public init(_ entries: [(key: String, value: OptionValue)]) { self.entries = entries }

    /// Reads the a{sv} child `index` of a tuple.
    public init(child index: Int, of tuple: OpaquePointer) { entries = Variant.optionsChild(tuple, index) }

    /// The first entry named `key`, with its signature.
    public func value(_ key: String) -> OptionValue? { entries.first { $0.key == key }?.value }

    public subscript(key: String) -> OptionValue.Kind? { value(key)?.kind }

    /// An `s`, `o` or `g`.
    public func string(_ key: String) -> String? { if case .string(let text)? = self[key] { text } else { nil } }

    /// A `y`, `q`, `u` or `t`.
    public func unsigned(_ key: String) -> UInt64? {
        if case .unsignedInteger(let number)? = self[key] { number } else { nil }
    }

    public func double(_ key: String) -> Double? { if case .double(let number)? = self[key] { number } else { nil } }

    public func bool(_ key: String) -> Bool? { if case .bool(let flag)? = self[key] { flag } else { nil } }

    /// An `ay`.
    public func bytes(_ key: String) -> [UInt8]? { if case .bytes(let bytes)? = self[key] { bytes } else { nil } }
}
