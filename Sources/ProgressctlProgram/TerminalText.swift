/// Text that came from the daemon, made safe to write to a terminal whatever the daemon
/// sends. A control character is shown escaped, as `ls` shows one in a file name (`\n`,
/// `\e`, `\x7f`, `\u{9b}`), so that no ESC, OSC (52 writes the clipboard), CR or LF in
/// a title can clear the screen, retitle the terminal or forge a line. Text that may
/// reorder its surroundings (`ClientText.mayReorder`: right-to-left letters, bidi controls)
/// is put in a first-strong isolate, so that it can not reorder the columns around it.
/// Widths are counted as terminals count them (`TerminalColumns`).
import ProgressClient
import ProgressModel

enum TerminalText {
    static func shown(_ text: String) -> String {
        var shown = ""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x07: shown += "\\a"
            case 0x08: shown += "\\b"
            case 0x09: shown += "\\t"
            case 0x0A: shown += "\\n"
            case 0x0B: shown += "\\v"
            case 0x0C: shown += "\\f"
            case 0x0D: shown += "\\r"
            case 0x1B: shown += "\\e"
            case 0..<0x20, 0x7F: shown += "\\x" + hex(scalar.value)
            case 0x80...0x9F: shown += "\\u{" + hex(scalar.value) + "}"
            default: shown.unicodeScalars.append(scalar)
            }
        }
        return !ClientText.mayReorder(shown) ? shown : ClientText.isolated(shown)
    }

    /// Columns a shown text takes on a terminal.
    static func width(_ text: String) -> Int {
        text.reduce(0) { $0 + TerminalColumns.of($1) }
    }

    /// The text cut to at most `columns` columns, with "…" where it was cut.
    static func prefix(_ text: String, columns limit: Int) -> String {
        guard width(text) > limit else { return text }
        guard limit > 1 else { return "" }
        var result = ""
        var used = 0
        for character in text {
            let needed = TerminalColumns.of(character)
            if used + needed > limit - 1 { break }
            result.append(character)
            used += needed
        }
        // What was cut may have held the PDI that closed an isolate.
        return ClientText.balanced(result) + "…"
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return digits.count == 1 ? "0" + digits : digits
    }
}
