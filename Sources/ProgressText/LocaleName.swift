import CICU
import ProgressModel

/// A locale as clients and the environment name it, resolved to the ICU identifier
/// progressd formats with. `Locale.current` on Linux ignores LANG and LC_*, so the
/// daemon resolves its own locale here.
public struct LocaleName: Hashable, Sendable {
    /// The ICU identifier, such as "fr_FR" or "sr_Latn_RS".
    public let identifier: String

    /// English, for the C and POSIX locales.
    public static let english = LocaleName(checkedIdentifier: "en")

    private init(checkedIdentifier: String) { identifier = checkedIdentifier }

    /// Parses POSIX (`fr_FR.UTF-8`, `sr_RS@latin`, `C`) and BCP 47 (`fr-FR`, `zh-Hans-CN`) forms.
    /// A string that is neither, or names no language ICU knows, is an error, not a fallback.
    public init(_ text: String) throws(ProgressError) {
        try ClientText.refuseControls(text, field: "locale")
        if Self.englishAliases.contains(text) || text.hasPrefix("C.") {
            self = .english
            return
        }
        var rest = Substring(text)
        var script: String?
        if let at = rest.firstIndex(of: "@") {
            script = Self.scriptForModifier[String(rest[rest.index(after: at)...])]
            rest = rest[..<at]
        }
        if let dot = rest.firstIndex(of: ".") {
            let codeset = rest[rest.index(after: dot)...]
            guard !codeset.isEmpty,
                  codeset.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
                throw Self.invalid(text, "its codeset is malformed")
            }
            rest = rest[..<dot]
        }
        let parts = rest.split(separator: rest.contains("_") ? "_" : "-", omittingEmptySubsequences: false)
        guard let languagePart = parts.first, (2...3).contains(languagePart.count),
              languagePart.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            throw Self.invalid(text, "it does not start with a language code such as 'fr'")
        }
        let language = languagePart.lowercased()
        guard icu_is_language(language) != 0 else {
            throw Self.invalid(text, "'\(language)' is not a language code ICU knows")
        }
        var region: String?
        for part in parts.dropFirst() {
            if part.count == 4, script == nil, region == nil, part.allSatisfy({ $0.isASCII && $0.isLetter }) {
                script = part.prefix(1).uppercased() + part.dropFirst().lowercased()
            } else if region == nil,
                      (part.count == 2 && part.allSatisfy { $0.isASCII && $0.isLetter })
                        || (part.count == 3 && part.allSatisfy { $0.isASCII && $0.isNumber }) {
                region = part.uppercased()
            } else {
                throw Self.invalid(text, "'\(part)' is neither a script nor a region")
            }
        }
        identifier = [language, script, region].compactMap { $0 }.joined(separator: "_")
    }

    /// The locale for numbers from the environment: LC_ALL, then LC_NUMERIC, then
    /// LC_MESSAGES, then LANG; unset, empty or invalid values fall through to English,
    /// as the C library does.
    public static func fromEnvironment(_ environment: [String: String]) -> LocaleName {
        for key in ["LC_ALL", "LC_NUMERIC", "LC_MESSAGES", "LANG"] {
            guard let value = environment[key], !value.isEmpty else { continue }
            return (try? LocaleName(value)) ?? .english
        }
        return .english
    }

    /// CLDR's default numbering system for the locale: "latn" for fr_FR, "beng" for bn_BD,
    /// "arabext" for fa_IR.
    public var numberingSystem: String {
        var name = [CChar](repeating: 0, count: 32)
        guard icu_default_numbering_system(identifier, &name, name.count) != 0 else { return "latn" }
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The locale ICU formats numbers, sizes and durations with: this one, in its CLDR digits.
    public var formattingIdentifier: String { identifier + "@numbers=" + numberingSystem }

    /// Whether the locale's script runs right to left (Arabic, Hebrew, Urdu).
    public var isRightToLeft: Bool { icu_is_right_to_left(identifier) != 0 }

    private static let englishAliases: Set<String> = ["C", "POSIX"]
    /// glibc's modifiers that select a script; others (such as @euro) do not change numbers.
    private static let scriptForModifier = ["latin": "Latn", "cyrillic": "Cyrl", "devanagari": "Deva"]

    private static func invalid(_ text: String, _ reason: String) -> ProgressError {
        let shown = text.count > 64 ? String(text.prefix(64)) + "…" : text
        return .invalidValue("locale '\(shown)' is not a locale: \(reason)")
    }
}
