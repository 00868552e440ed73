import Foundation
@testable import ProgressctlProgram
import ProgressTestSupport
import XCTest

/// Issue 12: under tmux a title cleared the screen, a newline in a unit forged a table row
/// and an OSC sequence retitled the terminal. progressctl never writes a control character
/// that came from the daemon, whatever the daemon sends.
final class TerminalTextTests: DaemonTestCase {
    override var startsBusAtSetUp: Bool { false }

    func testControlCharactersAreShownEscapedAsLsDoes() {
        XCTAssertEqual(TerminalText.shown("a\nb\r\t\u{1B}[2J\u{7F}\u{01}"), "a\\nb\\r\\t\\e[2J\\x7f\\x01")
        let c1 = TerminalText.shown("x\u{9B}2J")
        XCTAssertEqual(c1, "x\\u{9b}2J")
        XCTAssertEqual(TerminalText.shown("backup"), "backup")
        for text in ["\u{1B}]52;c;AAAA\u{07}", "ok\u{85}forged", "\u{1B}]0;title\u{9C}"] {
            XCTAssertFalse(TerminalText.shown(text).unicodeScalars.contains {
                $0.value < 0x20 || (0x7F...0x9F).contains($0.value)
            })
        }
    }

    func testNonASCIIIsIsolatedAndTakesItsVisibleWidth() {
        let shown = TerminalText.shown("\u{202E}evil")
        XCTAssertEqual(shown, "\u{2068}\u{202E}evil\u{202C}\u{2069}", "the override closed inside the isolate")
        XCTAssertEqual(TerminalText.width(shown), 4)
        XCTAssertEqual(TerminalText.shown("a\u{2069}b"), "\u{2068}ab\u{2069}", "a stray PDI can not end the isolate")
        let cut = TerminalText.prefix(TerminalText.shown("\u{2067}שלום עולם"), columns: 5)
        XCTAssertEqual(TerminalText.width(cut), 5)
        XCTAssertEqual(cut.unicodeScalars.filter { (0x2066...0x2068).contains($0.value) }.count,
                       cut.unicodeScalars.filter { $0.value == 0x2069 }.count, "every isolate closed after a cut")
    }

    /// Issue 23: CJK titles took one column a character, so the columns after them slid
    /// right on the terminal; a combining mark took one of its own.
    func testWideCharactersTakeTwoColumnsAndCombiningMarksNone() {
        XCTAssertEqual(TerminalText.width("備份文件"), 8)
        XCTAssertEqual(TerminalText.width("バックアップ"), 12)
        XCTAssertEqual(TerminalText.width("cafe\u{301}"), 4, "e and U+0301 are one column")
        XCTAssertEqual(TerminalText.width("\u{301}x"), 1, "a combining mark with nothing to sit on takes no column")
        XCTAssertEqual(TerminalText.width("a\u{200B}b\u{FEFF}"), 2)
        XCTAssertEqual(TerminalText.width("한국어"), 6)
        let cut = TerminalText.prefix("備份文件", columns: 6)
        XCTAssertEqual(cut, "備份…", "a wide character that would take the ellipsis's column is left out")
        XCTAssertEqual(TerminalText.width(cut), 5)
        XCTAssertEqual(TerminalText.prefix("re\u{301}sume\u{301}s", columns: 4), "re\u{301}s…")
        XCTAssertEqual(TerminalText.prefix("備份", columns: 4), "備份")
    }

    func testTableColumnsLineUpAfterCJKAndCombiningMarks() {
        let rows = [["NAME", "STATE"], ["備份", "running"], ["\u{301}cafe\u{301}", "paused"], ["copy", "failed"]]
        let lines = ReadCommands.table(rows).split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, rows.count)
        for (line, row) in zip(lines, rows) {
            XCTAssertEqual(
                TerminalText.width(line) - TerminalText.width(row[1]), 7, "the STATE column starts at 7: \(line)")
        }
    }

    func testListShowsBidiTitlesIsolatedAndTheDaemonsRefusalEscaped() throws {
        try startDaemon()
        var environment = bus.environment
        environment["LC_ALL"] = "C.UTF-8"
        let ctl = BuildProducts.url(of: "progressctl").path
        let refused = try CommandResult.run(
            ctl, ["start", "evil", "--title", "x\u{1B}]0;owned\u{07}"], environment: environment)
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.errors.contains("title has the control character U+001B"), refused.errors)
        XCTAssertFalse(refused.errors.contains("\u{1B}"))
        XCTAssertEqual(try CommandResult.run(
            ctl, ["start", "copy-גיבוי", "--title", "\u{202E}evil", "--total", "4", "--unit", "גיבוי"],
            environment: environment).status, 0)
        let list = try CommandResult.run(ctl, ["list"], environment: environment)
        XCTAssertEqual(list.status, 0, list.errors)
        let row = try XCTUnwrap(list.output.split(separator: "\n").last)
        XCTAssertTrue(row.hasPrefix("\u{2068}copy-גיבוי\u{2069}"), String(row))
        XCTAssertTrue(row.contains("\u{2068}0 of 4 \u{2068}גיבוי\u{2069}\u{2069}"), String(row))
    }
}
