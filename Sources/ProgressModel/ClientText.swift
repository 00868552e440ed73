/// What makes a client's text safe to show and speak. Control characters (C0, DEL, C1)
/// are refused where text comes in: they drive terminals (ESC, OSC 52 writes the
/// clipboard), forge lines (CR, LF) and mean nothing to a screen reader. Bidirectional and
/// zero-width characters are allowed, since real right-to-left text needs them; so every
/// text the daemon composes puts each client piece in a first-strong isolate (U+2068 …
/// U+2069), which keeps the piece's direction and overrides from reordering what surrounds it.
public enum ClientText {
    public static let firstStrongIsolate: Unicode.Scalar = "\u{2068}"
    public static let popDirectionalIsolate: Unicode.Scalar = "\u{2069}"
    /// PDF: closes an embedding or override.
    public static let popDirectionalFormatting: Unicode.Scalar = "\u{202C}"

    /// The first control character of `text` and its position (counted in scalars), if any.
    public static func firstControl(in text: String) -> (scalar: Unicode.Scalar, position: Int)? {
        for (position, scalar) in text.unicodeScalars.enumerated() where scalar.isControl {
            return (scalar, position)
        }
        return nil
    }

    /// "U+001B", as errors and logs name a character.
    public static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// InvalidValue naming the field and the character, for a text with a control character.
    public static func refuseControls(_ text: String, field: String) throws(ProgressError) {
        guard let (scalar, position) = firstControl(in: text) else { return }
        throw .invalidValue(
            "\(field) has the control character \(codePoint(scalar)) at character \(position + 1); "
                + "control characters (C0, DEL and C1) are not allowed in texts: \(quoted(text))")
    }

    /// Whether `text` can change the order of what surrounds it: it holds a right-to-left
    /// letter (Hebrew, Arabic, Syriac, Thaana, N'Ko and the other right-to-left blocks) or a
    /// bidi control (marks, embeddings, overrides, isolates). Other text is laid out left to
    /// right inside any sentence, so it is left byte for byte as it is.
    public static func mayReorder(_ text: String) -> Bool {
        text.unicodeScalars.contains { scalar in
            switch scalar.value {
            case 0x0590...0x08FF, 0xFB1D...0xFDFF, 0xFE70...0xFEFE, 0x10800...0x10FFF, 0x1E800...0x1EFFF: true
            case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
            default: false
            }
        }
    }

    /// `text` in a first-strong isolate when it may reorder its surroundings, its own
    /// controls balanced first (`balanced`), so the piece can not end the isolate early or
    /// leave one open.
    public static func isolated(_ text: String) -> String {
        guard mayReorder(text) else { return text }
        var result = String.UnicodeScalarView()
        result.append(firstStrongIsolate)
        result.append(contentsOf: balanced(text).unicodeScalars)
        result.append(popDirectionalIsolate)
        return String(result)
    }

    /// `text` with every bidi control it opens closed at its end, and every closer it has no
    /// opener for dropped: an embedding or override (LRE, RLE, LRO, RLO) gets its PDF, an
    /// isolate (LRI, RLI, FSI) its PDI, in the order the bidi algorithm closes them (a PDI
    /// ends the embeddings opened inside its isolate). So no override or embedding reaches
    /// past the text into whatever a consumer puts after it. Balanced text is returned as
    /// it is, byte for byte.
    public static func balanced(_ text: String) -> String {
        guard mayReorder(text) else { return text }
        let (result, open, changed) = balancing(text)
        guard !open.isEmpty || changed else { return text }
        var closed = result
        for opened in open.reversed() {
            closed.append(opened == .isolate ? popDirectionalIsolate : popDirectionalFormatting)
        }
        return String(closed)
    }

    /// Whether `text` leaves a bidi embedding, override or isolate open at its end, so that
    /// it would reorder whatever a consumer puts after it (what `balanced` prevents).
    public static func leavesOpen(_ text: String) -> Bool {
        mayReorder(text) && !balancing(text).open.isEmpty
    }

    private enum Opened { case embedding, isolate }

    /// The text with closers that close nothing dropped and embeddings a PDI ends closed
    /// explicitly (for renderers that know no isolates), what is still open at its end, and
    /// whether anything was changed.
    private static func balancing(_ text: String) -> (String.UnicodeScalarView, open: [Opened], changed: Bool) {
        var stack: [Opened] = []
        var changed = false
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x202A, 0x202B, 0x202D, 0x202E: stack.append(.embedding)
            case 0x2066, 0x2067, 0x2068: stack.append(.isolate)
            case 0x202C:
                guard stack.last == .embedding else {
                    changed = true
                    continue
                }
                stack.removeLast()
            case 0x2069:
                guard let isolate = stack.lastIndex(of: .isolate) else {
                    changed = true
                    continue
                }
                for _ in isolate + 1..<stack.count {
                    result.append(popDirectionalFormatting)
                    changed = true
                }
                stack.removeSubrange(isolate...)
            default: break
            }
            result.append(scalar)
        }
        return (result, stack, changed)
    }

    /// `text` for a place that reads markup (a notification body when the server advertises
    /// `body-markup`): `&`, `<` and `>` escaped, the three the Desktop Notifications
    /// specification names, so that a client's text is shown as text and never becomes a
    /// link, an image or a tag. The daemon adds no markup of its own.
    public static func escapedMarkup(_ text: String) -> String {
        guard text.contains(where: { $0 == "&" || $0 == "<" || $0 == ">" }) else { return text }
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// A text from an older daemon's state, which let control characters in: each becomes a
    /// space, so the task survives and shows nothing a terminal would act on.
    public static func repaired(_ text: String) -> String {
        guard firstControl(in: text) != nil else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { $0.isControl ? " " : $0 }))
    }

    /// The longest prefix of `text` of at most `maxBytes` UTF-8 bytes, cut between characters.
    public static func truncated(_ text: String, to maxBytes: Int) -> String {
        if text.utf8.count <= maxBytes { return text }
        var result = ""
        var bytes = 0
        for character in text {
            let size = character.utf8.count
            if bytes + size > maxBytes { break }
            result.append(character)
            bytes += size
        }
        return result
    }
}
