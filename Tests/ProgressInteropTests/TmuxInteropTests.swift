import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// `progressctl run` inside Debian's tmux (3.3a), whose client runs on a terminal the test
/// owns (helpers/pty-record.py): what tmux writes to that outer terminal is recorded, and so
/// is what progressctl wrote into its pane (`pipe-pane -O`, set up by the pane's own script
/// before progressctl starts). With passthrough allowed, progressctl wraps OSC 9;4 in
/// `ESC P tmux; … ESC \` with its ESCs doubled, and tmux hands the outer terminal the plain
/// sequence; without it tmux drops the wrapped one, and auto mode sends none at all.
final class TmuxInteropTests: InteropTestCase {
    var progressctl: String { BuildProducts.url(of: "progressctl").path }
    var socket: URL { scratch.appendingPathComponent("tmux.sock") }
    static let esc = "\u{1B}"

    /// What reached the outer terminal, and what progressctl wrote into the pane.
    struct Recording {
        var outer: String
        var pane: String
        var status: Int32?

        /// Each OSC 9;4 payload ("1;40", "0;") in `text`, in order.
        static func payloads(_ text: String, prefix: String = "\u{1B}]9;4;", end: String = "\u{1B}\\") -> [String] {
            text.components(separatedBy: prefix).dropFirst().compactMap { $0.components(separatedBy: end).first }
        }
    }

    override func tearDown() {
        // The server ends with its only session; this is for the ways a test fails first.
        if let scratch, FileManager.default.fileExists(atPath: scratch.appendingPathComponent("tmux.sock").path) {
            _ = try? run("/usr/bin/tmux", ["-S", socket.path, "kill-server"])
        }
        super.tearDown()
    }

    /// Starts a tmux server with `configuration` and one session whose pane records its own
    /// output, runs `setup` (tmux commands) there, then progressctl with `mode` over a command
    /// that prints 20 %, 40 %, 60 %, 80 % (the task is named after the mode); waits for the tmux
    /// client to exit and the pane's recording to end.
    func record(configuration: String, setup: String = "", mode: String) throws -> Recording {
        let configurationFile = scratch.appendingPathComponent("tmux.conf")
        try (configuration + "\n").write(to: configurationFile, atomically: true, encoding: .utf8)
        let outer = scratch.appendingPathComponent("outer.bin")
        let pane = scratch.appendingPathComponent("pane.bin")
        let script = """
            tmux pipe-pane -O 'cat >> "\(pane.path)"'
            \(setup)
            progressctl run \(mode) --terminal-progress \(mode) -- sh -c \
            'for i in 20 40 60 80; do echo "$i%"; sleep 0.2; done'
            echo pane-end
            """
        try script.write(to: scratch.appendingPathComponent("pane.sh"), atomically: true, encoding: .utf8)
        var environment = self.environment
        environment["PATH"] = URL(fileURLWithPath: progressctl).deletingLastPathComponent().path + ":/usr/bin:/bin"
        environment["TERM"] = "xterm-256color"
        environment["SHELL"] = "/bin/sh"
        // A terminal that declares OSC 9;4 (Windows Terminal's marker, which tmux's panes inherit).
        environment["WT_SESSION"] = "progressd-test"
        let client = try HelperProcess(
            "/usr/bin/python3",
            [Self.helperDirectory.appendingPathComponent("pty-record.py").path, outer.path, "tmux", "-S", socket.path,
             "-f", configurationFile.path, "new-session", "-x", "80", "-y", "24", "-c", scratch.path, "sh pane.sh"],
            environment: environment, errorFile: scratch.appendingPathComponent("tmux-client.stderr"))
        helpers.append(client)
        let status = client.waitForExit(seconds: 60)
        XCTAssertEqual(status, 0, "the tmux client: \(client.output)")
        // The pane's `cat` ends after the pane: its last line is proof that all of it is in.
        let complete = BusConnection.pump(seconds: 10) {
            ((try? String(contentsOf: pane, encoding: .utf8)) ?? "").contains("pane-end")
        }
        func text(_ file: URL) -> String { String(decoding: (try? Data(contentsOf: file)) ?? Data(), as: UTF8.self) }
        XCTAssertTrue(complete, "the pane's recording did not end: \(text(outer).debugDescription)")
        return Recording(outer: text(outer), pane: text(pane), status: status)
    }

    /// The task's values, rising, then the clear last.
    func assertProgressThenClear(
        _ payloads: [String], _ where: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        let values = payloads.filter { $0.hasPrefix("1;") }.compactMap { Int($0.dropFirst(2)) }
        XCTAssertGreaterThanOrEqual(
            values.filter { $0 > 0 && $0 < 100 }.count, 2, "\(`where`): \(payloads)", file: file, line: line)
        XCTAssertEqual(values, values.sorted(), "\(`where`): \(payloads)", file: file, line: line)
        XCTAssertEqual(payloads.last, "0;", "\(`where`): \(payloads)", file: file, line: line)
    }

    /// docs/scripts.md's line, as written, in tmux's configuration; auto mode, in a terminal
    /// that declares OSC 9;4: the pane gets the DCS-wrapped form, the outer terminal the plain one.
    func testTheManualsPassthroughLineBringsOSC94ToTheOuterTerminal() throws {
        let guide = try ManualPages.text("docs/scripts.md")
        let line = try XCTUnwrap(guide.range(of: #"inside tmux only with `([^`]+)`"#, options: .regularExpression)
            .map { String(guide[$0]).components(separatedBy: "`")[1] })
        XCTAssertEqual(line, "set -g allow-passthrough on")
        let seen = try record(configuration: line, mode: "auto")
        let esc = Self.esc
        assertProgressThenClear(
            Recording.payloads(seen.pane, prefix: "\(esc)Ptmux;\(esc)\(esc)]9;4;", end: "\(esc)\(esc)\\\(esc)\\"),
            "pane")
        assertProgressThenClear(Recording.payloads(seen.outer), "outer terminal")
        XCTAssertFalse(seen.outer.contains("\(esc)Ptmux;"), "tmux unwraps what it passes on")
        XCTAssertEqual(try snapshot()["auto"]?["State"]?.string, "finished")
    }

    /// Passthrough on for this pane only (`set -p`), off globally: auto mode asks tmux about
    /// its own pane.
    func testPassthroughOnForThePaneOnly() throws {
        let seen = try record(
            configuration: "set -g allow-passthrough off", setup: "tmux set -p allow-passthrough on", mode: "auto")
        assertProgressThenClear(Recording.payloads(seen.outer), "outer terminal")
    }

    /// Without passthrough, `always` writes the wrapped form into the pane and tmux passes
    /// none of it on; auto mode writes none.
    func testWithoutPassthroughNothingReachesTheOuterTerminal() throws {
        let always = try record(configuration: "set -g allow-passthrough off", mode: "always")
        XCTAssertTrue(always.pane.contains("\(Self.esc)Ptmux;\(Self.esc)\(Self.esc)]9;4;1;"), always.pane)
        XCTAssertFalse(always.outer.contains("9;4;"), always.outer)
        XCTAssertTrue(always.outer.contains("80%"), "the command's output did reach it: \(always.outer)")

        try FileManager.default.removeItem(at: scratch.appendingPathComponent("pane.bin"))
        try FileManager.default.removeItem(at: scratch.appendingPathComponent("outer.bin"))
        let auto = try record(configuration: "set -g allow-passthrough off", mode: "auto")
        XCTAssertFalse(auto.pane.contains("9;4;"), auto.pane)
        XCTAssertFalse(auto.outer.contains("9;4;"), auto.outer)
        XCTAssertTrue(auto.pane.contains("80%"), auto.pane)
    }
}
