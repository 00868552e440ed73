/// An error a client can cause. Each case maps to one D-Bus error name under
/// `org.progressd.Progress1.Error.`; the message says what was wrong and with which value.
public enum ProgressError: Error, Equatable, Sendable {
    case invalidName(String)
    case invalidValue(String)
    case noSuchTask(String)
    case unknownOption(String)
    case limitExceeded(String)
    case notAllowed(String)
    /// The caller's identity may not do this to this task; the message says who may.
    case accessDenied(String)
    /// The change could not be made durable because the state directory's disk is full (or
    /// over quota): nothing of it was kept. The message names the path and the space left.
    case storageFull(String)
    /// The change could not be made durable because the state directory failed otherwise
    /// (EIO, a read-only filesystem): nothing of it was kept. The message names the path
    /// and the system's reason.
    case storageFailed(String)

    /// A read whose reply would pass `Limits.maxReplyBytes`, with how to ask for less.
    public static func tooBigForOneReply(_ method: String, tasks: Int, limit: Int) -> ProgressError {
        .limitExceeded(
            "\(method) of all \(tasks) tasks would be more than \(limit) bytes, the most one reply may carry; "
                + "read them in pages with SnapshotPage (or List, then Describe each)")
    }

    /// A read whose reply would hold more than `Limits.maxReplyValues` values, with how to ask
    /// for less.
    public static func tooManyValuesForOneReply(
        _ method: String, tasks: Int, values: Int, limit: Int
    ) -> ProgressError {
        .limitExceeded(
            "\(method) of all \(tasks) tasks would be \(values) values, more than the \(limit) one reply may carry "
                + "(other clients wait while a reply is sent); read them in pages with SnapshotPage"
                + (method == "List" ? "" : " (or List, then Describe each)"))
    }

    /// The last component of the D-Bus error name.
    public var name: String {
        switch self {
        case .invalidName: "InvalidName"
        case .invalidValue: "InvalidValue"
        case .noSuchTask: "NoSuchTask"
        case .unknownOption: "UnknownOption"
        case .limitExceeded: "LimitExceeded"
        case .notAllowed: "NotAllowed"
        case .accessDenied: "AccessDenied"
        case .storageFull: "StorageFull"
        case .storageFailed: "StorageFailed"
        }
    }

    public var message: String {
        switch self {
        case .invalidName(let m), .invalidValue(let m), .noSuchTask(let m),
             .unknownOption(let m), .limitExceeded(let m), .notAllowed(let m), .accessDenied(let m),
             .storageFull(let m), .storageFailed(let m):
            m
        }
    }

    /// The same error, its message prefixed with where it happened.
    public func prefixed(_ place: String) -> ProgressError {
        let message = "\(place): \(self.message)"
        return switch self {
        case .invalidName: .invalidName(message)
        case .invalidValue: .invalidValue(message)
        case .noSuchTask: .noSuchTask(message)
        case .unknownOption: .unknownOption(message)
        case .limitExceeded: .limitExceeded(message)
        case .notAllowed: .notAllowed(message)
        case .accessDenied: .accessDenied(message)
        case .storageFull: .storageFull(message)
        case .storageFailed: .storageFailed(message)
        }
    }

    /// Every error name, for documentation and tests that keep the XML complete.
    public static let allNames = [
        "InvalidName", "InvalidValue", "NoSuchTask", "UnknownOption", "LimitExceeded", "NotAllowed", "AccessDenied",
        "StorageFull", "StorageFailed",
    ]

    /// Whether the error says the state directory could not keep the change (the call may
    /// succeed later, once the disk does).
    public var isStorage: Bool {
        switch self {
        case .storageFull, .storageFailed: true
        default: false
        }
    }
}

/// Quotes a client's string for an error message, cut short so that a 1 MB value
/// does not come back in full.
package func quoted(_ text: String, limit: Int = 64) -> String {
    var shown = ""
    var count = 0
    for character in text.unicodeScalars {
        if count == limit { return "'\(shown)…'" }
        if character.isControl || character.properties.isDefaultIgnorableCodePoint {
            shown += "\\u{\(String(character.value, radix: 16))}"
        } else {
            shown.unicodeScalars.append(character)
        }
        count += 1
    }
    return "'\(shown)'"
}

extension Unicode.Scalar {
    /// Unicode's control characters (general category Cc) are exactly U+0000–U+001F and
    /// U+007F–U+009F; comparing values spares a property lookup on every call's name.
    var isControl: Bool { value < 0x20 || (0x7F...0x9F).contains(value) }
}
