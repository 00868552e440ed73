import FoundationEssentials

/// One compiled message catalog (`msgfmt`'s .mo file, GNU gettext's format), read whole: its
/// translations by message id, and the plural rule its header names.
///
/// progressd reads the files itself rather than through libc's gettext: gettext answers in
/// the process's language, chosen with LANGUAGE under a locale other than C, and the only
/// locale every system has is C.UTF-8, in which glibc 2.38 and later (Debian 13) ignore
/// LANGUAGE as they do in C — every text stayed English there.
struct MessageFile {
    /// Translations by id; a plural message's id is its two English forms joined by NUL, and
    /// its translation every form joined by NUL, as the file holds them.
    let translations: [String: String]
    let pluralRule: PluralRule

    /// The file's header is the translation of the empty id; a malformed file reads as empty.
    init?(bytes: [UInt8]) {
        guard bytes.count >= 28 else { return nil }
        func word(_ offset: Int, _ bigEndian: Bool) -> Int? {
            guard offset >= 0, offset + 4 <= bytes.count else { return nil }
            let value = bytes[offset..<offset + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            return Int(bigEndian ? value : value.byteSwapped)
        }
        let bigEndian: Bool
        switch word(0, true) {
        case 0x9504_12DE: bigEndian = true
        case 0xDE12_0495: bigEndian = false
        default: return nil
        }
        guard let count = word(8, bigEndian), let originals = word(12, bigEndian), let targets = word(16, bigEndian)
        else { return nil }
        func string(_ table: Int, _ index: Int) -> String? {
            guard let length = word(table + index * 8, bigEndian), let start = word(table + index * 8 + 4, bigEndian),
                start + length <= bytes.count
            else { return nil }
            return String(decoding: bytes[start..<start + length], as: UTF8.self)
        }
        var translations: [String: String] = [:]
        for index in 0..<count {
            guard let id = string(originals, index), let text = string(targets, index) else { return nil }
            translations[id] = text
        }
        self.translations = translations
        let header = translations[""] ?? ""
        let rule = header.split(separator: "\n").first { $0.hasPrefix("Plural-Forms:") }
            .flatMap { line in line.firstRange(of: "plural=").map { line[$0.upperBound...] } }
            .map { $0.hasSuffix(";") ? String($0.dropLast()) : String($0) }
        pluralRule = rule.flatMap(PluralRule.init) ?? .english
    }

    /// The translation of a message without plural forms, if the file has one.
    func text(_ id: String) -> String? {
        translations[id].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The plural form for `count` of a message with two English forms, if the file has it.
    func text(_ singular: String, plural: String, count: Int) -> String? {
        guard
            let forms = translations[singular + "\0" + plural]?.split(separator: "\0", omittingEmptySubsequences: false)
        else { return nil }
        let index = pluralRule.form(for: count)
        return index < forms.count && !forms[index].isEmpty ? String(forms[index]) : nil
    }
}
