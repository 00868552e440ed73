import CGLib
import ProgressBus

/// A regular expression of GLib's (PCRE2: the syntax of Perl, with look-behind, `\d` and
/// lazy quantifiers, as ICU's and most tools' are), compiled once and matched against lines
/// of a command's output. What each group matched comes back as text; a group that took no
/// part in the match is nil.
///
/// Sendable, so that the parsers' tables of patterns may stand in static properties: the
/// compiled GRegex is bound to the thread that compiled it (GLib may finish compiling, for
/// PCRE2's JIT, on a first match), and any other thread that matches stops the program.
public final class RegularExpression: Sendable {
    public let pattern: String
    /// The number of capturing groups.
    public let groupCount: Int
    private let compiled: ThreadBound<OpaquePointer>

    public struct SyntaxError: Error, CustomStringConvertible {
        public let description: String
    }

    public init(_ pattern: String) throws(SyntaxError) {
        var error: UnsafeMutablePointer<GError>?
        guard let regex = g_regex_new(pattern, G_REGEX_OPTIMIZE, GRegexMatchFlags(rawValue: 0), &error) else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "not a regular expression"
            g_clear_error(&error)
            throw SyntaxError(description: message)
        }
        self.pattern = pattern
        compiled = ThreadBound(regex)
        groupCount = Int(g_regex_get_capture_count(regex))
    }

    deinit { g_regex_unref(compiled.value) }

    /// The groups of the first match, or nil when the line does not match.
    public func firstMatch(in line: String) -> [String?]? {
        matches(in: line, all: false).first
    }

    /// The groups of every match, left to right, none overlapping.
    public func allMatches(in line: String) -> [[String?]] {
        matches(in: line, all: true)
    }

    private func matches(in line: String, all: Bool) -> [[String?]] {
        let regex = compiled.value
        // The match info reads the line again at every next match: it must live until the last.
        return line.withCString { text in
            var info: OpaquePointer?
            defer { g_match_info_free(info) }
            var found: [[String?]] = []
            var matched = g_regex_match(regex, text, GRegexMatchFlags(rawValue: 0), &info) != 0
            while matched {
                found.append((0..<groupCount).map { index in
                    var start: Int32 = -1, end: Int32 = -1
                    guard g_match_info_fetch_pos(info, Int32(index + 1), &start, &end) != 0,
                          start >= 0, end >= start else { return nil }
                    let bytes = UnsafeRawBufferPointer(start: text + Int(start), count: Int(end - start))
                    return String(decoding: bytes, as: UTF8.self)
                })
                if !all { break }
                matched = g_match_info_next(info, nil) != 0
            }
            return found
        }
    }
}
