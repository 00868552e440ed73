/// What makes a client's text safe to show and speak. Control characters (C0, DEL, C1)
/// are refused where text comes in: they drive terminals (ESC, OSC 52 writes the
/// clipboard), forge lines (CR, LF) and mean nothing to a screen reader. Bidirectional and
/// zero-width characters are allowed, since real right-to-left text needs them; so every
/// text the daemon composes puts each client piece in a first-strong isolate (U+2068 …
/// U+2069), which keeps the piece's direction and overrides from reordering what surrounds it.
public enum ClientText {
    public static let firstStrongIsolate: Unicode.Scalar = "\u{2068}"
    public static let popDirectionalIsolate: Unicode.Scalar = "\u{2069}"
    /// LRI, RLI and FSI: each opens an isolate that a PDI closes.
    static let isolateInitiators: Set<UInt32> = [0x2066, 0x2067, 0x2068]

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

    /// `text` in a first-strong isolate when it may reorder its surroundings. Isolates the piece opens are closed inside it and a
    /// PDI it has no opener for is dropped, so the piece can not end the isolate early or
    /// leave one open; embeddings and overrides end at the closing PDI by the bidi algorithm.
    public static func isolated(_ text: String) -> String {
        guard mayReorder(text) else { return text }
        var result = String.UnicodeScalarView()
        result.append(firstStrongIsolate)
        var open = 0
        for scalar in text.unicodeScalars {
            if isolateInitiators.contains(scalar.value) {
                open += 1
            } else if scalar == popDirectionalIsolate {
                guard open > 0 else { continue }
                open -= 1
            }
            result.append(scalar)
        }
        for _ in 0..<open { result.append(popDirectionalIsolate) }
        result.append(popDirectionalIsolate)
        return String(result)
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
