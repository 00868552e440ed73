import Foundation
import XCTest

@testable import ProgressText

/// progressd reads msgfmt's files itself (MessageFile) and evaluates their plural rules
/// (PluralRule), because glibc 2.38 and later ignore LANGUAGE in the C.UTF-8 locale, where
/// the daemon asked gettext for each language: on Debian 13 every text stayed English.
final class MessageFileTests: XCTestCase {
    static let po = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("po")

    /// The rule of each catalog in po/, at the counts where its forms change.
    func testEveryCatalogsPluralRuleChoosesGettextsForm() throws {
        let cases: [String: [Int: Int]] = [
            "de": [0: 1, 1: 0, 2: 1, 101: 1],
            "fr": [0: 0, 1: 0, 2: 1],
            "ja": [0: 0, 1: 0, 7: 0],
            "ru": [1: 0, 2: 1, 4: 1, 5: 2, 11: 2, 12: 2, 21: 0, 22: 1, 25: 2, 111: 2, 121: 0],
            "ar": [0: 0, 1: 1, 2: 2, 3: 3, 10: 3, 11: 4, 99: 4, 100: 5, 102: 5, 103: 3, 111: 4],
        ]
        for (language, forms) in cases {
            let header = try String(contentsOf: Self.po.appendingPathComponent("\(language).po"), encoding: .utf8)
            let line = try XCTUnwrap(header.split(separator: "\n").first { $0.hasPrefix("\"Plural-Forms:") }, language)
            let expression = try XCTUnwrap(line.range(of: "plural=").map { line[$0.upperBound...] })
                .replacingOccurrences(of: ";\\n\"", with: "")
            let rule = try XCTUnwrap(PluralRule(expression), "\(language): \(expression)")
            for (count, form) in forms {
                XCTAssertEqual(rule.form(for: count), form, "\(language), \(count)")
            }
        }
    }

    func testMalformedRulesAreRefused() {
        for expression in ["", "n ==", "(n != 1", "n ? 1", "x", "n != 1 )"] {
            XCTAssertNil(PluralRule(expression), expression)
        }
        XCTAssertEqual(PluralRule("n % 0")?.form(for: 5), 0, "a division by zero gives 0")
    }

    /// msgfmt's own output, in both byte orders, read back: a text, a plural message's forms.
    func testMsgfmtsFilesInBothByteOrders() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("progressd-mo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        for order in ["little", "big"] {
            let mo = scratch.appendingPathComponent("ru-\(order).mo")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/msgfmt")
            process.arguments = ["--endianness=\(order)", "-o", mo.path, Self.po.appendingPathComponent("ru.po").path]
            try process.run()
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0)
            let file = try XCTUnwrap(MessageFile(bytes: Array(try Data(contentsOf: mo))), order)
            XCTAssertEqual(file.text("Cancel"), "Отменить", order)
            XCTAssertNil(file.text("no such message"))
            let forms = [1, 2, 5].map {
                file.text("{title}: {percent} percent", plural: "{title}: {percent} percent", count: $0)
            }
            XCTAssertEqual(forms.compactMap { $0 }.count, 3, "\(order): \(forms)")
            XCTAssertEqual(Set(forms).count, 3, "three Russian forms: \(forms)")
        }
        XCTAssertNil(MessageFile(bytes: Array("not a catalog at all, not at all".utf8)))
    }
}
