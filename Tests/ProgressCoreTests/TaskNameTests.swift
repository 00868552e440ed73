@testable import ProgressModel
import XCTest

final class TaskNameTests: XCTestCase {
    func testAcceptsUTF8NamesUpToTheLimit() throws {
        XCTAssertEqual(try TaskName("backup").text, "backup")
        XCTAssertEqual(try TaskName("Sauvegarde d’été ✓").text, "Sauvegarde d’été ✓")
        XCTAssertNoThrow(try TaskName(String(repeating: "a", count: 200)))
    }

    func testRefusesEmptyLongAndControlNames() {
        XCTAssertThrowsError(try TaskName("")) { error in
            XCTAssertEqual((error as? ProgressError)?.name, "InvalidName")
        }
        XCTAssertThrowsError(try TaskName(String(repeating: "é", count: 101))) { error in
            XCTAssertTrue((error as? ProgressError)?.message.contains("202 bytes") == true, "\(error)")
        }
        XCTAssertThrowsError(try TaskName("tab\there")) { error in
            XCTAssertTrue((error as? ProgressError)?.message.contains("U+0009") == true, "\(error)")
        }
        XCTAssertThrowsError(try TaskName("nul\u{0}")) { error in
            XCTAssertEqual((error as? ProgressError)?.name, "InvalidName")
        }
    }

    /// Characters that do not show would let two live names look the same.
    func testRefusesDefaultIgnorableCharactersNamingThem() {
        for (text, named) in [
            ("back\u{200B}up", "U+200B ZERO WIDTH SPACE"), ("a\u{200D}b", "U+200D ZERO WIDTH JOINER"),
            ("\u{202E}evil", "U+202E RIGHT-TO-LEFT OVERRIDE"), ("x\u{2066}", "U+2066 LEFT-TO-RIGHT ISOLATE"),
            ("soft\u{AD}hyphen", "U+00AD SOFT HYPHEN"), ("bom\u{FEFF}", "U+FEFF ZERO WIDTH NO-BREAK SPACE"),
            ("vs\u{FE0F}", "U+FE0F VARIATION SELECTOR-16"),
        ] {
            assertError(try TaskName(text), "InvalidName", "contains \(named), a default-ignorable character")
        }
        XCTAssertThrowsError(try TaskName("back\u{200B}up")) { error in
            XCTAssertTrue(
                (error as? ProgressError)?.message.contains("'back\\u{200b}up'") == true,
                "the quote shows it: \(error)")
        }
        XCTAssertNoThrow(try TaskName("ok \u{0301}"), "a combining mark shows")
    }

    func testControlCharactersAreExactlyUnicodesCategoryCc() throws {
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            XCTAssertEqual(
                scalar.isControl, scalar.properties.generalCategory == .control, "U+\(String(value, radix: 16))")
        }
        XCTAssertThrowsError(try TaskName("tab\there"))
        XCTAssertThrowsError(try TaskName("c1\u{85}next line"))
        XCTAssertNoThrow(try TaskName("no-break\u{A0}space"))
    }
}
