import Foundation
import ProgressText
import XCTest

/// Every catalog in po/ translates every message the daemon says and every word the GNOME
/// Shell extension takes from it, keeps every placeholder, and has as many plural forms as
/// its Plural-Forms header says.
final class CatalogTests: XCTestCase {
    static let poDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("po")

    struct Entry {
        var id = ""
        var plural: String?
        var translations: [String] = []
    }

    /// A reader for the subset of PO our catalogs use: one-line strings.
    static func entries(_ file: URL) throws -> (header: String, entries: [String: Entry]) {
        var entries: [String: Entry] = [:]
        var current: Entry?
        var header = ""
        func unquote(_ text: Substring) -> String {
            String(text.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"")
                .replacingOccurrences(of: "\\n", with: "\n")
        }
        func finish() {
            guard let entry = current else { return }
            if entry.id.isEmpty { header = entry.translations.joined() } else { entries[entry.id] = entry }
            current = nil
        }
        for line in try String(contentsOf: file, encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("msgid ") {
                finish()
                current = Entry(id: unquote(line.dropFirst(6)))
            } else if line.hasPrefix("msgid_plural ") {
                current?.plural = unquote(line.dropFirst(13))
            } else if line.hasPrefix("msgstr") {
                current?.translations.append(unquote(line[line.index(after: line.firstIndex(of: " ")!)...]))
            } else if line.hasPrefix("\""), current?.id.isEmpty == true {
                current?.translations.append(unquote(line[...]))
            }
        }
        finish()
        return (header, entries)
    }

    static func placeholders(_ text: String) -> [String] {
        let regex = try! NSRegularExpression(pattern: #"\{[a-z]+\}"#)
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text))
            .map { String(text[Range($0.range, in: text)!]) }.sorted()
    }

    /// The words the GNOME Shell extension asks the catalogs for: gettext's `_('…')` and
    /// ngettext's `n_('…', '…', n)` in its taskView.js.
    static func extensionMessages() throws -> [(singular: String, plural: String?)] {
        let file = poDirectory.deletingLastPathComponent().appendingPathComponent("gnome-shell/shared/taskView.js")
        let source = try String(contentsOf: file, encoding: .utf8)
        func matches(_ pattern: String) -> [[String]] {
            let regex = try! NSRegularExpression(pattern: pattern)
            return regex.matches(in: source, range: NSRange(source.startIndex..., in: source)).map { match in
                (1..<match.numberOfRanges).map { String(source[Range(match.range(at: $0), in: source)!]) }
            }
        }
        let plurals = matches(#"\bn_\('([^']*)', '([^']*)'"#).map { (singular: $0[0], plural: Optional($0[1])) }
        let singulars = matches(#"[^n]_\('([^']*)'\)"#).map { (singular: $0[0], plural: String?.none) }
        return plurals + singulars
    }

    /// The daemon's messages and the extension's words, each once.
    static func allMessages() throws -> [(singular: String, plural: String?)] {
        var seen = Set<String>()
        return (MessageCatalog.messages.map { (singular: $0.singular, plural: $0.plural) } + (try extensionMessages()))
            .filter { seen.insert($0.singular).inserted }
    }

    func testTheTemplateListsExactlyTheMessagesOfTheDaemonAndTheExtension() throws {
        let (_, template) = try Self.entries(Self.poDirectory.appendingPathComponent("progressd.pot"))
        let messages = try Self.allMessages()
        XCTAssertGreaterThan(try Self.extensionMessages().count, 10, "the extension's words are found in taskView.js")
        XCTAssertEqual(Set(template.keys), Set(messages.map(\.singular)))
        for message in messages {
            XCTAssertEqual(template[message.singular]?.plural, message.plural, message.singular)
        }
    }

    func testEveryCatalogIsCompleteWithMatchingPlaceholders() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.poDirectory.path)
            .filter { $0.hasSuffix(".po") }
        XCTAssertEqual(Set(files), ["de.po", "fr.po", "es.po", "ru.po", "ar.po", "ja.po", "zh.po"])
        for file in files {
            let (header, entries) = try Self.entries(Self.poDirectory.appendingPathComponent(file))
            let forms = try XCTUnwrap(header.range(of: #"nplurals=(\d+)"#, options: .regularExpression).map {
                Int(header[$0].dropFirst("nplurals=".count))!
            }, file)
            let messages = try Self.allMessages()
            for message in messages {
                guard let entry = entries[message.singular] else {
                    XCTFail("\(file) lacks '\(message.singular)'")
                    continue
                }
                XCTAssertEqual(entry.plural, message.plural, "\(file): \(message.singular)")
                XCTAssertEqual(
                    entry.translations.count, message.plural == nil ? 1 : forms, "\(file): \(message.singular)")
                for translation in entry.translations {
                    XCTAssertFalse(translation.isEmpty, "\(file): '\(message.singular)' is untranslated")
                    XCTAssertEqual(
                        Self.placeholders(translation), Self.placeholders(message.singular),
                        "\(file): '\(translation)' changes the placeholders of '\(message.singular)'")
                }
            }
            XCTAssertEqual(
                entries.count, messages.count, "\(file) has messages neither the daemon nor the extension says")
        }
    }
}
