import ProgressBus
import ProgressModel
import XCTest

/// Task and LauncherEntry paths are GLib's escape (`g_dbus_escape_object_path`); docs/api.md
/// and the XML publish the rule, and these tests hold GLib to it, byte for byte.
final class ObjectPathElementTests: XCTestCase {
    /// The rule as docs/api.md and org.progressd.Progress1.xml state it: ASCII letters and
    /// digits as they are, every other byte `_` and two lowercase hex digits.
    static func documentedEscape(_ text: String) -> String {
        text.utf8.map { byte in
            let isAlphanumeric = (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte)
                || (0x61...0x7A).contains(byte)
            if isAlphanumeric { return String(UnicodeScalar(byte)) }
            let hex = String(byte, radix: 16)
            return "_" + (hex.count == 1 ? "0" + hex : hex)
        }.joined()
    }

    static let trickyNames = [
        "backup", "my copy", "_", "__5f", "_5f", "x_41", "a/b.c-d", "é", "é✓", "e\u{301}",
        "日本語のタスク", "a b/c", "Ünïcödé", "🎉 party", "tab\u{7f}del",
        "../..", "%20", "~user", "0", "Z9z",
        String(repeating: "x/", count: 200), "\u{10FFFF}", "مرحبا", "שלום", "ä\u{308}",
        "dots...", "quote\"'`", "\\back",
    ]

    func testGLibsEscapeIsTheDocumentedOne() {
        for text in Self.trickyNames {
            XCTAssertEqual(ObjectPathElement.escape(text), Self.documentedEscape(text), text)
        }
        // Every printable ASCII character and a sample of every plane.
        for value in Array(0x20...0x7E) + [0xA0, 0x3B1, 0x4E00, 0xFFFD, 0x1F600, 0x10FFFD] {
            let text = "a" + String(UnicodeScalar(UInt32(value))!) + "b"
            XCTAssertEqual(ObjectPathElement.escape(text), Self.documentedEscape(text), "U+\(String(value, radix: 16))")
        }
    }

    func testPathElementsFollowTheDocumentedEscape() throws {
        XCTAssertEqual(try TaskName("backup").pathElement, "backup")
        XCTAssertEqual(try TaskName("my copy").pathElement, "my_20copy")
        XCTAssertEqual(try TaskName("_").pathElement, "_5f")
        XCTAssertEqual(try TaskName("é").pathElement, "_c3_a9")
        XCTAssertEqual(try TaskName("a/b.c-d").pathElement, "a_2fb_2ec_2dd")
        XCTAssertEqual(BusNames.taskPath(try TaskName("my copy")), "/org/progressd/Progress1/tasks/my_20copy")
    }

    func testPathElementsRoundTrip() throws {
        for text in Self.trickyNames
        where !text.unicodeScalars.contains(where: \.properties.isDefaultIgnorableCodePoint) {
            guard let name = try? TaskName(text) else { continue }
            XCTAssertEqual(TaskName(pathElement: name.pathElement), name, text)
        }
    }

    func testElementsThatNoNameEscapesToAreRefused() {
        XCTAssertNil(TaskName(pathElement: ""))  // the empty name
        XCTAssertNil(TaskName(pathElement: "_"))  // GLib's element for the empty text
        XCTAssertNil(TaskName(pathElement: "_41"))  // "A" is never escaped
        XCTAssertNil(TaskName(pathElement: "_4"))  // truncated escape
        XCTAssertNil(TaskName(pathElement: "_zz"))  // not hex
        XCTAssertNil(TaskName(pathElement: "_C3_A9"))  // uppercase hex is not what the escape writes (GLib reads it)
        XCTAssertNil(TaskName(pathElement: "_c3"))  // not UTF-8
        XCTAssertNil(TaskName(pathElement: "_09"))  // a control character
        XCTAssertNil(TaskName(pathElement: "_00"))  // a NUL
        XCTAssertNil(TaskName(pathElement: "a-b"))  // a byte no element holds
    }
}
