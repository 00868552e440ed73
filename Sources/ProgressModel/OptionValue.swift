/// One value of an `a{sv}` from a client, reduced to what option parsing needs.
/// ProgressBus builds these from GVariants; Core never sees GLib types.
public struct OptionValue: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case string(String)
        case double(Double)
        case bool(Bool)
        case signedInteger(Int64)
        case unsignedInteger(UInt64)
        /// An array of strings (`as`).
        case strings([String])
        /// An array of numbers (`ad`).
        case doubles([Double])
        /// An array of whole numbers (`au`).
        case wholeNumbers([UInt64])
        /// Bytes (`ay`), such as an image.
        case bytes([UInt8])
        /// A type no option takes (arrays, structs, nested variants).
        case unsupported
        /// A string or array longer than any option takes, never read: `count` bytes or
        /// elements against `limit`.
        case tooLarge(count: Int, limit: Int)
    }

    /// What ProgressBus reads of one option's value at most; anything longer is refused
    /// as `tooLarge` from its length alone, before a byte of it is copied, so a client can
    /// not make the daemon or the renderer read a megabyte-sized value to be told it is too
    /// long. Each is above the largest limit of an option of that type.
    /// A text: the longest text option is a 4,096-byte message.
    public static let maxTextBytes = 65_536
    /// An array of strings or numbers: no option needs more (a render spec takes 16 colors,
    /// a subscription names the tasks a panel shows).
    public static let maxArrayElements = 4_096
    /// Bytes: a skin image is at most 4 MiB.
    public static let maxByteArrayBytes = 4 << 20

    public let kind: Kind
    /// The D-Bus type signature the client sent, for error messages.
    public let signature: String

    public init(_ kind: Kind, signature: String) {
        self.kind = kind
        self.signature = signature
    }

    /// The value as a number, from a double or any integer (`gdbus call` writes 1 as an int32).
    public var number: Double? {
        switch kind {
        case .double(let number): number
        case .signedInteger(let number): Double(number)
        case .unsignedInteger(let number): Double(number)
        default: nil
        }
    }

    public static func string(_ value: String) -> OptionValue { OptionValue(.string(value), signature: "s") }
    public static func double(_ value: Double) -> OptionValue { OptionValue(.double(value), signature: "d") }
    public static func bool(_ value: Bool) -> OptionValue { OptionValue(.bool(value), signature: "b") }
    public static func uint64(_ value: UInt64) -> OptionValue { OptionValue(.unsignedInteger(value), signature: "t") }
    public static func int32(_ value: Int32) -> OptionValue {
        OptionValue(.signedInteger(Int64(value)), signature: "i")
    }
}

/// A value a task property has, for ProgressBus to put into a GVariant.
public enum PropertyValue: Sendable, Equatable {
    case string(String)
    case double(Double)
    case bool(Bool)
    case uint64(UInt64)
    case int64(Int64)
}
