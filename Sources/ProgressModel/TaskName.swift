/// A validated task name: UTF-8, 1 to `Limits.maxNameBytes` bytes, no control characters
/// and no default-ignorable characters (Unicode's Default_Ignorable_Code_Point: zero-width
/// spaces and joiners, bidi controls, variation selectors...), which do not show, so that
/// two live names never look the same.
///
/// Names are compared in Unicode NFC. Swift's String equality is canonical equivalence
/// already, so NFC "café" and NFD "café" are one key in the store; the daemon's adapter
/// also hands Core each name in NFC (Core imports no normalizer; see
/// `TaskStore.normalizeName`), so that the text kept, shown and escaped into the path is
/// the composed one, and a name has one path whichever form a client sent.
///
/// Each name has one object path element, GLib's escape of its UTF-8 form
/// (`ObjectPathElement` in ProgressBus, the adapter, since Core imports nothing). The
/// escape is reversible, so a client can go from a path back to the name, and two names
/// never share a path.
public struct TaskName: Hashable, Sendable, CustomStringConvertible {
    public let text: String

    public init(_ text: String, limits: Limits = Limits()) throws(ProgressError) {
        let byteCount = text.utf8.count
        if byteCount == 0 {
            throw .invalidName("task name is empty; give 1 to \(limits.maxNameBytes) bytes of UTF-8")
        }
        if byteCount > limits.maxNameBytes {
            throw .invalidName(
                "task name \(quoted(text)) is \(byteCount) bytes; the limit is \(limits.maxNameBytes)")
        }
        if let control = text.unicodeScalars.first(where: \.isControl) {
            throw .invalidName(
                "task name \(quoted(text)) contains control character U+\(hex4(control.value))")
        }
        if let hidden = text.unicodeScalars.first(where: \.properties.isDefaultIgnorableCodePoint) {
            let name = hidden.properties.name.map { " " + $0 } ?? ""
            throw .invalidName(
                "task name \(quoted(text)) contains U+\(hex4(hidden.value))\(name), a default-ignorable character "
                    + "that does not show; names may not contain such characters")
        }
        self.text = text
    }

    /// A name of printable ASCII only, checked by its bytes alone: such a name is its own
    /// NFC and holds no control and no default-ignorable character, so the Unicode checks
    /// of `init(_:limits:)` would find nothing. Nil for any other text (and for one that is
    /// empty or too long), which the full checks then handle. Nearly every call names its
    /// task in ASCII, and this spares each one a normalization and two scans of Unicode
    /// properties.
    public init?(printableASCII text: String, limits: Limits) {
        var text = text
        let isPrintable = text.withUTF8 { bytes in
            !bytes.isEmpty && bytes.count <= limits.maxNameBytes && bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
        }
        guard isPrintable else { return nil }
        self.text = text
    }

    public var description: String { text }
}

func hex4(_ value: UInt32) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}
