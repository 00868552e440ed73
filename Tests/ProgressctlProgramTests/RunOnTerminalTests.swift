import Foundation
import ProgressBus
import ProgressTestSupport
import XCTest

/// `progressctl run` with a terminal as stdout: the command on a terminal of its own, its
/// output shown byte for byte, the user's terminal mode restored on every way out, the
/// window size forwarded, the exit status kept, each interrupt heard once; and OSC 9;4 only
/// where it is declared.
final class RunOnTerminalTests: DaemonTestCase {
    let esc = "\u{1B}"

    /// A plain xterm: no variable that declares OSC 9;4.
    var environment: [String: String] {
        var environment = bus.environment
        environment["LC_ALL"] = "C.UTF-8"
        environment["TERM"] = "xterm"
        for key in [
            "WT_SESSION", "ConEmuANSI", "TERM_PROGRAM", "TERM_FEATURES", "PTYXIS_VERSION", "KONSOLE_VERSION",
            "VTE_VERSION", "TMUX",
        ] {
            environment[key] = nil
        }
        return environment
    }

    var progressctl: String { BuildProducts.url(of: "progressctl").path }

    func task(_ name: String) throws -> String {
        try CommandResult.run(progressctl, ["get", name], environment: environment).output
    }

    func testOutputIsTheCommandsByteForByteWithoutOSC94() throws {
        // Colours, a tab, UTF-8, carriage returns, a title (OSC 0), and OSC 9;4 in both
        // terminators, written in pieces (one with a pause longer than progressctl waits before
        // it shows what it held back); and the command sees a terminal.
        let script = #"""
            test -t 0 && test -t 1 && test -t 2 && printf 'on a terminal\n'
            printf '\033[1;31mred\033[0m\ttab ünï\r\n'; printf '\033]0;title\007'
            printf '\033]9;4;1;25\033\\'; sleep 0.3; printf 'half\033]9;4'; sleep 0.6; printf ';1;60\007way\n'
            printf 'progress 1/3\rprogress 2/3\r\n'; printf '\033]9;4;0;\033\\done\n'
            """#
        let (_, direct) = try PseudoTerminalDriver.run(["/bin/sh", "-c", script], environment: environment)
        let (report, wrapped) = try PseudoTerminalDriver.run(
            [progressctl, "run", "osc", "--", "/bin/sh", "-c", script], environment: environment)
        XCTAssertEqual(report.status, 0)
        let directText = String(decoding: direct, as: UTF8.self)
        XCTAssertTrue(directText.hasPrefix("on a terminal\r\n"), directText)
        XCTAssertTrue(directText.contains("\(esc)]9;4;1;60\u{07}"), "the command did write OSC 9;4")
        var expected = directText
        for sequence in ["\(esc)]9;4;1;25\(esc)\\", "\(esc)]9;4;1;60\u{07}", "\(esc)]9;4;0;\(esc)\\"] {
            expected = expected.replacingOccurrences(of: sequence, with: "")
        }
        XCTAssertEqual(String(decoding: wrapped, as: UTF8.self), expected)
        XCTAssertFalse(wrapped.contains(Data("]9;4".utf8)))
        XCTAssertEqual(report.after, report.before)
        let task = try task("osc")
        XCTAssertTrue(task.contains("State              finished\n"), task)
    }

    func testInterruptRestoresTheTerminalMode() throws {
        // SIGINT sent to progressctl, and Ctrl-C typed: the command is interrupted either way.
        for step in [
            PseudoTerminalDriver.Step(when: "ready", signal: SIGINT),
            PseudoTerminalDriver.Step(when: "ready", send: "\u{03}"),
        ] {
            let (report, output) = try PseudoTerminalDriver.run(
                [progressctl, "run", "sleepy", "--", "/bin/sh", "-c", "echo ready; sleep 30; echo not interrupted"],
                steps: [step], environment: environment)
            XCTAssertEqual(report.status, 130, String(decoding: output, as: UTF8.self))
            XCTAssertNotEqual(report.during, report.before, "raw while the command runs")
            XCTAssertEqual(report.after, report.before, "restored")
            XCTAssertFalse(String(decoding: output, as: UTF8.self).contains("not interrupted"))
            XCTAssertTrue(try task("sleepy").contains("Message            /bin/sh was killed by signal 2\n"))
        }
    }

    /// A command that counts its interrupts, on stderr; SIGTERM makes it say how many it heard.
    static let interruptCounter = #"""
        import os, signal
        heard = 0
        def interrupted(number, frame):
            global heard
            heard += 1
            os.write(2, b"INT\n")
        def terminated(number, frame):
            os.write(2, b"TERM after %d INT\n" % heard)
            os._exit(0)
        signal.signal(signal.SIGINT, interrupted)
        signal.signal(signal.SIGTERM, terminated)
        os.write(2, b"ready\n")
        while True:
            signal.pause()
        """#

    /// Ctrl-C typed once reaches the command once: on pipes (where the terminal signals the
    /// command's process group, progressctl's own, itself), on a terminal of its own with the
    /// keys passed on, and on one with stdin elsewhere (where progressctl passes the signal
    /// on). A SIGTERM sent to progressctl alone after it is passed on after the interrupt it
    /// caught, so the command's count is final when it exits.
    func testEachInterruptReachesTheCommandOnce() throws {
        let counter = ["/usr/bin/python3", "-c", Self.interruptCounter]
        for (how, command) in [
            ("on pipes",
             ["/bin/sh", "-c", "exec \"$0\" \"$@\" > /dev/null", progressctl, "run", "count", "--"] + counter),
            ("on a terminal", [progressctl, "run", "count", "--"] + counter),
            ("on a terminal, stdin elsewhere",
             ["/bin/sh", "-c", "exec \"$0\" \"$@\" < /dev/null", progressctl, "run", "count", "--"] + counter),
        ] {
            let (report, output) = try PseudoTerminalDriver.run(command, steps: [
                PseudoTerminalDriver.Step(when: "ready", send: "\u{03}"),
                PseudoTerminalDriver.Step(when: "INT", signal: SIGTERM),
            ], environment: environment)
            let shown = String(decoding: output, as: UTF8.self)
            XCTAssertTrue(shown.contains("TERM after 1 INT"), "\(how): \(shown.debugDescription)")
            XCTAssertEqual(report.status, 0, how)
            XCTAssertEqual(report.after, report.before, how)
        }
    }

    func testCtrlZSuspendsWithTheTerminalRestoredAndResumes() throws {
        let (report, output) = try PseudoTerminalDriver.run(
            [progressctl, "run", "pausing", "--", "/bin/sh", "-c", "echo ready; sleep 1; echo resumed"],
            steps: [PseudoTerminalDriver.Step(when: "ready", send: "\u{1A}")], environment: environment)
        XCTAssertEqual(report.status, 0, String(decoding: output, as: UTF8.self))
        XCTAssertEqual(report.stopped, report.before, "the user's mode while suspended")
        XCTAssertNotEqual(report.during, report.before)
        XCTAssertEqual(report.after, report.before)
        XCTAssertTrue(String(decoding: output, as: UTF8.self).contains("resumed"))
    }

    func testWindowSizeFollowsTheTerminal() throws {
        // The size of the command's own terminal (its stdout), not the driver's.
        let script = "stty size <&1; trap 'stty size <&1; exit 0' WINCH; echo ready; while :; do sleep 0.05; done"
        let (report, output) = try PseudoTerminalDriver.run(
            [progressctl, "run", "resize", "--", "/bin/bash", "-c", script],
            steps: [PseudoTerminalDriver.Step(when: "ready", resize: [33, 111])], environment: environment)
        XCTAssertEqual(report.status, 0)
        XCTAssertEqual(String(decoding: output, as: UTF8.self), "24 80\r\nready\r\n33 111\r\n")
    }

    func testExitStatusIsTheCommands() throws {
        let (exited, _) = try PseudoTerminalDriver.run(
            [progressctl, "run", "seven", "--", "/bin/sh", "-c", "exit 7"], environment: environment)
        XCTAssertEqual(exited.status, 7)
        XCTAssertTrue(try task("seven").contains("Message            /bin/sh exited with status 7\n"))
        let (killed, _) = try PseudoTerminalDriver.run(
            [progressctl, "run", "killed", "--", "/bin/sh", "-c", "kill -TERM $$"], environment: environment)
        XCTAssertEqual(killed.status, 143)
        XCTAssertEqual(killed.after, killed.before)
    }

    /// Under script(1), as in a real terminal: a capable TERM_PROGRAM gets OSC 9;4 set and
    /// cleared; a plain xterm gets none, not even the command's own.
    func testTheTerminalsOwnBarOnlyWhereDeclared() throws {
        let command = "\(progressctl) run tab -- sh -c 'printf \"\\033]9;4;1;40\\033\\\\\\\\\"; "
            + "sleep 0.5; echo half; sleep 0.5; echo done'"
        var capable = environment
        capable["TERM_PROGRAM"] = "WezTerm"
        let shown = try CommandResult.run(
            "/usr/bin/script", ["-qfec", command, "/dev/null"], environment: capable).output
        XCTAssertTrue(shown.contains("\(esc)]9;4;1;40\(esc)\\"), shown.debugDescription)
        XCTAssertTrue(shown.hasSuffix("\(esc)]9;4;0;\(esc)\\"), shown.debugDescription)
        let plain = try CommandResult.run(
            "/usr/bin/script", ["-qfec", command, "/dev/null"], environment: environment).output
        XCTAssertTrue(plain.contains("half\r\ndone\r\n"), plain.debugDescription)
        XCTAssertFalse(plain.contains("]9;4"), plain.debugDescription)
        let never = try CommandResult.run(
            "/usr/bin/script",
            ["-qfec", command.replacingOccurrences(of: "run tab", with: "run tab --terminal-progress never"),
             "/dev/null"],
            environment: capable).output
        XCTAssertFalse(never.contains("]9;4"), never.debugDescription)
    }
}
