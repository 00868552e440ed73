import CGLib

/// The columns a character takes on a terminal, from GLib's Unicode tables (no locale
/// needed, unlike wcwidth): wide East Asian characters take two, combining marks, format
/// characters and Hangul's medial vowels and final consonants none.
enum TerminalColumns {
    /// A grapheme cluster takes the columns of its widest scalar: a base letter with its
    /// combining marks takes the base's, a cluster of format characters none.
    static func of(_ character: Character) -> Int {
        character.unicodeScalars.reduce(0) { max($0, of($1)) }
    }

    static func of(_ scalar: Unicode.Scalar) -> Int {
        let character = gunichar(scalar.value)
        if g_unichar_iszerowidth(character) != 0 { return 0 }
        return g_unichar_iswide(character) != 0 ? 2 : 1
    }
}
