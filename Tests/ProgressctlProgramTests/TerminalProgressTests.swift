import Foundation
import ProgressctlProgram
import ProgressTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// OSC 9;4 both ways: read from a command's output (and taken out of it for a terminal
/// that does not declare it), and written to the user's terminal where it does.
final class TerminalProgressTests: XCTestCase {
    let esc = "\u{1B}"

    /// Feeds `text` in chunks of `chunk` bytes; returns what is shown and the readings.
    func filter(_ text: String, keep: Bool, chunk: Int) -> (String, [ProgressReading]) {
        var filter = TerminalStreamFilter(keepsProgressSequences: keep)
        var shown: [UInt8] = []
        var readings: [ProgressReading] = []
        let bytes = Array(text.utf8)
        for start in stride(from: 0, to: bytes.count, by: chunk) {
            let output = filter.feed(bytes[start..<min(start + chunk, bytes.count)])
            shown += output.shown
            readings += output.readings
        }
        shown += filter.flush(commandEnded: true)
        return (String(decoding: shown, as: UTF8.self), readings)
    }

    func testBothTerminatorsEveryStateAndAnySplit() {
        let text = "a\(esc)]9;4;1;37\(esc)\\b\u{07}\(esc)]9;4;1;250\u{07}c\(esc)]9;4;3;\(esc)\\"
            + "\(esc)]9;4;4;\u{07}\(esc)]9;4;2;80\(esc)\\\(esc)]9;4;0;\u{07}d"
        let expected: [ProgressReading] = [
            ProgressReading(.fraction(0.37), phase: "osc"), ProgressReading(.fraction(1), phase: "osc"),
            ProgressReading(.indeterminate, phase: "osc"),
            ProgressReading(.paused(nil), phase: "osc", message: "paused"),
            ProgressReading(.error(0.8), phase: "osc", message: "error"), ProgressReading(.indeterminate, phase: "osc"),
        ]
        for chunk in 1...text.utf8.count {
            let (stripped, readings) = filter(text, keep: false, chunk: chunk)
            XCTAssertEqual(stripped, "ab\u{07}cd", "chunk \(chunk)")
            XCTAssertEqual(readings, expected, "chunk \(chunk)")
            XCTAssertEqual(filter(text, keep: true, chunk: chunk).0, text, "chunk \(chunk)")
        }
    }

    func testAQuietPauseInsideOSC94KeepsItHeldAndALoneEscapeGoes() {
        var filter = TerminalStreamFilter(keepsProgressSequences: false)
        XCTAssertEqual(filter.feed(Array("half\(esc)]9;4".utf8)).shown, Array("half".utf8))
        XCTAssertEqual(filter.flush(commandEnded: false), [], "a pause while the command runs")
        let rest = filter.feed(Array(";1;60\u{07}way".utf8))
        XCTAssertEqual(rest.shown, Array("way".utf8))
        XCTAssertEqual(rest.readings, [ProgressReading(.fraction(0.6), phase: "osc")])

        _ = filter.feed(Array("\(esc)".utf8))
        XCTAssertEqual(filter.flush(commandEnded: false), Array("\(esc)".utf8))
        XCTAssertTrue(filter.isBetweenSequences)

        _ = filter.feed(Array("\(esc)]9;4;1".utf8))
        XCTAssertEqual(filter.flush(commandEnded: true), Array("\(esc)]9;4;1".utf8), "the command has ended")
        XCTAssertTrue(filter.isBetweenSequences)
    }

    func testOtherSequencesPassUntouched() {
        // A window title (OSC 0), a hyperlink (OSC 8), iTerm2's notification (OSC 9 alone),
        // colours, and an OSC 9;4 with garbage in it.
        let text = "\(esc)]0;title\u{07}\(esc)]8;;http://x/\(esc)\\link\(esc)]8;;\(esc)\\\(esc)]9;hello\u{07}"
            + "\(esc)[1;31mred\(esc)[0m\(esc)]9;4;1;x\u{07}\(esc)(B"
        for chunk in [1, 2, 5, 1000] {
            let (shown, readings) = filter(text, keep: false, chunk: chunk)
            XCTAssertEqual(shown, text, "chunk \(chunk)")
            XCTAssertEqual(readings, [])
        }
        var filter = TerminalStreamFilter(keepsProgressSequences: false)
        XCTAssertEqual(filter.feed(Array("\(esc)[1;31mred\(esc)[0m\r\n".utf8)).text, Array("red\r\n".utf8))
        XCTAssertTrue(filter.isBetweenSequences)
        _ = filter.feed(Array("\(esc)]9;4".utf8))
        XCTAssertFalse(filter.isBetweenSequences)
    }

    func testDetectionAsTheEmittersDetect() {
        func shows(_ environment: [String: String], tmux: Bool = false) -> Bool {
            TerminalProgressMode.auto.shows(environment: environment, tmuxAllowsPassthrough: { tmux })
        }
        XCTAssertTrue(shows(["WT_SESSION": "a-b-c"]))
        XCTAssertTrue(shows(["ConEmuANSI": "ON"]))
        XCTAssertFalse(shows(["ConEmuANSI": "OFF"]))
        XCTAssertTrue(shows(["TERM_PROGRAM": "WezTerm"]))
        XCTAssertTrue(shows(["TERM_PROGRAM": "ghostty"]))
        XCTAssertTrue(shows(["TERM_PROGRAM": "iTerm.app", "TERM_FEATURES": "T3LrMSc7UUw9Ts3BFGsSyHNoSxF:P"]))
        XCTAssertFalse(shows(["TERM_PROGRAM": "iTerm.app", "TERM_FEATURES": "T3LrMSc7"]))
        XCTAssertTrue(shows(["PTYXIS_VERSION": "48.1"]))
        XCTAssertFalse(shows(["PTYXIS_VERSION": "47.3"]))
        XCTAssertTrue(shows(["KONSOLE_VERSION": "260400"]))
        XCTAssertFalse(shows(["KONSOLE_VERSION": "250803"]))
        XCTAssertTrue(shows(["VTE_VERSION": "8002"]))
        XCTAssertFalse(shows(["VTE_VERSION": "7600"]))
        XCTAssertFalse(shows(["TERM": "xterm-kitty", "KITTY_WINDOW_ID": "1"]))
        XCTAssertFalse(shows(["TERM": "xterm-256color"]))
        XCTAssertFalse(shows(["TERM": "dumb", "TERM_PROGRAM": "ghostty"]))
        // Inside tmux only with allow-passthrough.
        XCTAssertFalse(shows(["TERM_PROGRAM": "tmux", "TMUX": "/tmp/tmux-0/default,1,0", "WT_SESSION": "x"]))
        XCTAssertTrue(shows(["TERM_PROGRAM": "tmux", "TMUX": "/tmp/tmux-0/default,1,0", "WT_SESSION": "x"], tmux: true))
        XCTAssertTrue(
            TerminalProgressMode.always.shows(environment: ["TERM": "xterm"], tmuxAllowsPassthrough: { false }))
        XCTAssertFalse(
            TerminalProgressMode.never.shows(environment: ["WT_SESSION": "x"], tmuxAllowsPassthrough: { true }))
    }

    func testSequencesAndTmuxWrapping() {
        XCTAssertEqual(TerminalProgressSequence.text(.value(42), insideTmux: false), "\(esc)]9;4;1;42\(esc)\\")
        XCTAssertEqual(TerminalProgressSequence.text(.clear, insideTmux: false), "\(esc)]9;4;0;\(esc)\\")
        XCTAssertEqual(TerminalProgressSequence.text(.indeterminate, insideTmux: false), "\(esc)]9;4;3;\(esc)\\")
        XCTAssertEqual(TerminalProgressSequence.text(.paused(30), insideTmux: false), "\(esc)]9;4;4;30\(esc)\\")
        XCTAssertEqual(
            TerminalProgressSequence.text(.value(5), insideTmux: true),
            "\(esc)Ptmux;\(esc)\(esc)]9;4;1;5\(esc)\(esc)\\\(esc)\\")
        XCTAssertEqual(
            TerminalProgressSequence.look(of: ProgressReading(.paused(nil), phase: "osc"), last: 40), .paused(40))
    }

    /// The /proc reader against this very process: a file open for reading, read in part.
    func testFilePositionOfAProcessAndItsChildren() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("proc-\(UUID().uuidString)")
        try Data(count: 1_000_000).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let descriptor = open(file.path, O_RDONLY)
        defer { close(descriptor) }
        lseek(descriptor, 250_000, SEEK_SET)
        let sample = try XCTUnwrap(ProcessFileProgress(root: getpid()).sample())
        XCTAssertEqual(sample.path, file.path)
        XCTAssertEqual(sample.position, 250_000)
        XCTAssertEqual(sample.reading?.fraction, 0.25)
        // Its children are read too: a child reading a larger file wins.
        let big = file.appendingPathExtension("big")
        try Data(count: 2_000_000).write(to: big)
        defer { try? FileManager.default.removeItem(at: big) }
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/sh")
        child.arguments = ["-c", "exec 3<\"$0\"; read -r _; exit 0", big.path]
        let lifeline = Pipe()
        child.standardInput = lifeline
        let childExit = ProcessExit(child)
        try child.run()
        defer {
            lifeline.fileHandleForWriting.write(Data("\n".utf8))
            childExit.wait()
        }
        var seen: ProcessFileProgress.Sample?
        for _ in 0..<200 where seen?.path != big.path {
            seen = ProcessFileProgress(root: getpid()).sample()
            usleep(20_000)
        }
        XCTAssertEqual(seen?.path, big.path)
        XCTAssertEqual(seen?.position, 0)
    }
}
