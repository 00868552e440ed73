import Foundation
import ProgressText
import XCTest

/// Every catalog in po/ translates every message, keeps every placeholder, and has as many
/// plural forms as its Plural-Forms header says.
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
            String(text.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"").replacingOccurrences(of: "\\n", with: "\n")
        }
        func finish() {
            guard let entry = current else { return }
            if entry.id.isEmpty { header = entry.translations.joined() } else { entries[entry.id] = entry }
            current = nil
        }
        for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false) {
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

    func testTheTemplateListsExactlyTheMessagesTheDaemonSays() throws {
        let (_, template) = try Self.entries(Self.poDirectory.appendingPathComponent("progressd.pot"))
        XCTAssertEqual(Set(template.keys), Set(MessageCatalog.messages.map(\.singular)))
        for message in MessageCatalog.messages {
            XCTAssertEqual(template[message.singular]?.plural, message.plural, message.singular)
        }
    }

    func testEveryCatalogIsCompleteWithMatchingPlaceholders() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.poDirectory.path).filter { $0.hasSuffix(".po") }
        XCTAssertEqual(Set(files), ["de.po", "fr.po", "es.po", "ru.po", "ar.po", "ja.po", "zh.po"])
        for file in files {
            let (header, entries) = try Self.entries(Self.poDirectory.appendingPathComponent(file))
            let forms = try XCTUnwrap(header.range(of: #"nplurals=(\d+)"#, options: .regularExpression).map {
                Int(header[$0].dropFirst("nplurals=".count))!
            }, file)
            for message in MessageCatalog.messages {
                guard let entry = entries[message.singular] else {
                    XCTFail("\(file) lacks '\(message.singular)'")
                    continue
                }
                XCTAssertEqual(entry.plural, message.plural, "\(file): \(message.singular)")
                XCTAssertEqual(entry.translations.count, message.plural == nil ? 1 : forms, "\(file): \(message.singular)")
                for translation in entry.translations {
                    XCTAssertFalse(translation.isEmpty, "\(file): '\(message.singular)' is untranslated")
                    XCTAssertEqual(
                        Self.placeholders(translation), Self.placeholders(message.singular),
                        "\(file): '\(translation)' changes the placeholders of '\(message.singular)'")
                }
            }
            XCTAssertEqual(entries.count, MessageCatalog.messages.count, "\(file) has messages the daemon never says")
        }
    }
}
