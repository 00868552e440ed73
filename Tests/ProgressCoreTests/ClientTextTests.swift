@testable import ProgressModel
@testable import ProgressCore
import ProgressTestSupport
import XCTest

/// Issue 12: ESC, OSC, CR and LF in titles, units and messages cleared terminals and forged
/// table rows; bidi overrides reordered what surrounded them.
final class ClientTextTests: XCTestCase {
    let clock = ManualClock()

    func parse(_ key: String, _ text: String, for call: TaskUpdate.Call = .start) throws -> TaskUpdate {
        try TaskUpdate.parse([(key: key, value: .string(text))], for: call)
    }

    func testControlCharactersAreRefusedInEveryClientTextNamingTheFieldAndTheCharacter() {
        let hostile: [(String, Unicode.Scalar)] = [
            ("\u{1B}]0;owned\u{07}", "\u{1B}"), ("a\nb", "\n"), ("done\r", "\r"), ("del\u{7F}", "\u{7F}"),
            ("c1\u{9B}2J", "\u{9B}"),
        ]
        for key in ["title", "message", "unit", "app-id"] {
            for (text, scalar) in hostile {
                XCTAssertThrowsError(try parse(key, text)) { error in
                    guard let error = error as? ProgressError, case .invalidValue(let message) = error else {
                        return XCTFail("\(error)")
                    }
                    XCTAssertTrue(
                        message.hasPrefix("\(key) has the control character \(ClientText.codePoint(scalar))"), message)
                    XCTAssertFalse(message.unicodeScalars.contains { $0.isControl }, "the error quotes it escaped")
                }
            }
        }
        let store = TaskStore(clock: clock)
        let name = try! TaskName("job")
        _ = try! store.start(name, with: TaskUpdate(), caller: ":1.1")
        XCTAssertThrowsError(try store.fail(name, message: "disk\u{1B}[2J full")) { error in
            XCTAssertEqual((error as? ProgressError)?.name, "InvalidValue")
        }
    }

    func testBidiAndZeroWidthCharactersAreAllowedAndIsolatedWhenComposed() throws {
        let hebrew = "גיבוי\u{200F}"
        XCTAssertEqual(try parse("title", hebrew).title, hebrew)
        XCTAssertEqual(try parse("message", "a\u{202E}b\u{200B}").message, "a\u{202E}b\u{200B}")
        XCTAssertEqual(ClientText.isolated(hebrew), "\u{2068}\(hebrew)\u{2069}")
        XCTAssertEqual(ClientText.isolated("Backup"), "Backup", "left-to-right text can not reorder anything")
        XCTAssertEqual(ClientText.isolated("Копия 30\u{A0}%"), "Копия 30\u{A0}%")
        // A PDI without an opener can not close the isolate early; an opener is closed inside.
        XCTAssertEqual(ClientText.isolated("x\u{2069}y\u{2067}z"), "\u{2068}xy\u{2067}z\u{2069}\u{2069}")
    }

    func testAnOlderDaemonsTextsAreRepairedOnLoad() throws {
        let store = TaskStore(clock: clock)
        _ = try store.start(TaskName("job"), with: parse("title", "ok"), caller: ":1.1")
        var record = store.allRecords[0]
        record.fields["title"] = .string("backup\nbackup finished 100%")
        record.fields["unit"] = .string("\u{1B}]52;c;AAAA\u{07}")
        let restored = TaskStore(clock: clock)
        let problems = restored.restore([record])
        XCTAssertEqual(problems.count, 1, "\(problems)")
        XCTAssertTrue(problems.first?.contains("control characters") == true)
        let task = try XCTUnwrap(restored.task(TaskName("job")))
        XCTAssertEqual(task.title, "backup backup finished 100%")
        XCTAssertNil(ClientText.firstControl(in: task.unit))
    }

    /// Issue 22, case 6: a title holding RIGHT-TO-LEFT OVERRIDE was stored and served with the
    /// override open, reversing whatever a consumer put after it.
    func testStoredTextsCloseEveryOverrideEmbeddingAndIsolateTheyOpen() throws {
        XCTAssertEqual(ClientText.balanced("abc\u{202E}def"), "abc\u{202E}def\u{202C}")
        XCTAssertEqual(
            ClientText.balanced("\u{202B}a\u{2067}b\u{202D}c"), "\u{202B}a\u{2067}b\u{202D}c\u{202C}\u{2069}\u{202C}")
        // A PDI ends the embeddings opened inside its isolate: closed explicitly for renderers without isolates.
        XCTAssertEqual(ClientText.balanced("\u{2068}\u{202E}x\u{2069}y"), "\u{2068}\u{202E}x\u{202C}\u{2069}y")
        // Closers that close nothing are dropped: they could end a consumer's isolate early.
        XCTAssertEqual(ClientText.balanced("a\u{202C}b\u{2069}c"), "abc")
        XCTAssertEqual(
            ClientText.balanced("\u{2067}\u{202C}\u{2069}"), "\u{2067}\u{2069}", "a PDF can not close past an isolate")
        for plain in ["Backup", "גיבוי", "a\u{202E}b\u{202C}", "\u{2067}שלום\u{2069} 3"] {
            XCTAssertEqual(ClientText.balanced(plain), plain, "balanced text is kept byte for byte")
        }
        XCTAssertTrue(ClientText.leavesOpen("a\u{202E}b"))
        XCTAssertFalse(ClientText.leavesOpen(ClientText.balanced("a\u{202E}b\u{2066}")))
        XCTAssertEqual(ClientText.isolated("x\u{202E}y"), "\u{2068}x\u{202E}y\u{202C}\u{2069}")

        let store = TaskStore(clock: clock)
        let name = try TaskName("job")
        var update = try parse("title", "photos\u{202E}gpj.exe")
        update.message = "\u{202B}disk"
        update.unit = "\u{202D}files"
        _ = try store.start(name, with: update, caller: ":1.1")
        _ = try store.fail(name, message: "oops\u{202E}")
        let task = try XCTUnwrap(store.task(name))
        XCTAssertEqual(task.title, "photos\u{202E}gpj.exe\u{202C}")
        XCTAssertEqual(task.message, "oops\u{202E}\u{202C}")
        XCTAssertEqual(task.unit, "\u{202D}files\u{202C}")
        // State written by an older daemon is balanced on load too.
        var record = store.allRecords[0]
        record.fields["title"] = .string("old\u{202E}")
        let restored = TaskStore(clock: clock)
        _ = restored.restore([record])
        XCTAssertEqual(restored.task(name)?.title, "old\u{202E}\u{202C}")
    }
}
