import Foundation
import ProgressBus
import ProgressTestSupport
import XCTest

/// The built progressctl against a private bus: every command, its output and exit status.
final class ProgressctlTests: DaemonTestCase {

    @discardableResult
    func ctl(
        _ arguments: String..., environment: [String: String] = [:], stdin: String? = nil
    ) throws -> CommandResult {
        try ctl(arguments, environment: environment, stdin: stdin)
    }

    func ctl(_ arguments: [String], environment: [String: String] = [:], stdin: String? = nil) throws -> CommandResult {
        var env = bus.environment.merging(["LC_ALL": "C.UTF-8"].merging(environment) { $1 }) { $1 }
        env["NO_COLOR"] = nil
        let binary = BuildProducts.url(of: "progressctl").path
        guard let stdin else { return try CommandResult.run(binary, arguments, environment: env) }
        // Through `cat`, so that stdin is a pipe whose size progressctl can not see.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("stdin-\(UUID().uuidString)")
        try stdin.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        return try CommandResult.run(
            "/bin/sh", ["-c", "input=$1; shift; cat \"$input\" | \"$0\" \"$@\"", binary, file.path] + arguments,
            environment: env)
    }

    func testEveryHelpTextIsTheOneOnFile() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("help")
        let names = ["start", "set", "pulse", "finish", "fail", "remove", "cancel", "pause", "resume", "list", "get",
                     "watch", "run", "pipe", "render"]
        XCTAssertEqual(
            try ctl("--help").output,
            try String(contentsOf: directory.appendingPathComponent("progressctl.txt"), encoding: .utf8))
        for name in names {
            let expected = try String(contentsOf: directory.appendingPathComponent("\(name).txt"), encoding: .utf8)
            let help = try ctl(name, "--help")
            XCTAssertEqual(help.status, 0)
            XCTAssertEqual(help.output, expected, name)
            XCTAssertEqual(try ctl("help", name).output, expected)
            XCTAssertTrue(expected.contains("Examples:\n  progressctl \(name)"), name)
        }
    }

    func testUsageMistakesExit64AndNameTheArgument() throws {
        let none = try ctl()
        XCTAssertEqual(none.status, 64)
        XCTAssertTrue(none.errors.hasPrefix("Usage: progressctl COMMAND"))
        for (arguments, message) in [
            (["frobnicate"], "unknown command 'frobnicate'"),
            (["start"], "progressctl start: missing NAME"),
            (["set", "t", "abc"], "FRACTION must be a number such as 0.42 or 42%, not 'abc'"),
            (["set", "t", "--completed", "x"], "option '--completed' needs a whole number, not 'x'"),
            (["start", "t", "--colour", "red"], "unknown option '--colour' for 'start'"),
            (["fail", "t"], "missing MESSAGE"),
            (["run", "t"], "missing COMMAND after '--'"),
            (["run", "t", "--progress-regex", "(", "--", "true"], "is not a regular expression"),
            (["render", "t"], "missing -o FILE"),
            (["watch", "--interval", "0"], "needs seconds from 0.1 to 3600"),
        ] {
            let result = try ctl(arguments)
            XCTAssertEqual(result.status, 64, "\(arguments)")
            XCTAssertTrue(result.errors.contains(message), "\(arguments): \(result.errors)")
        }
    }

    func testTheDaemonsRefusalsExit1WithItsMessage() throws {
        let result = try ctl("set", "ghost", "0.5")
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.errors, "progressctl: no task is named 'ghost'\n")
        try ctl("start", "t")
        let range = try ctl("set", "t", "1.5")
        XCTAssertEqual(range.errors, "progressctl: fraction 1.5 is outside 0...1 (NaN and infinities are refused)\n")
    }

    func testNoServiceExits69() throws {
        daemon.stop()
        let result = try ctl("list")
        XCTAssertEqual(result.status, 69)
        XCTAssertTrue(
            result.errors.hasPrefix("progressctl: the service org.progressd.Progress1 can not be reached:"),
            result.errors)
        XCTAssertEqual(result.errors.split(separator: "\n").count, 1, "one line")
        let renderer = try ctl("render", "t", "-o", "/dev/null")
        XCTAssertEqual(renderer.status, 69)
        XCTAssertTrue(renderer.errors.contains("org.progressd.Renderer1 can not be reached"))
        var noBus = bus.environment
        noBus["DBUS_SESSION_BUS_ADDRESS"] = nil
        let missing = try CommandResult.run(BuildProducts.url(of: "progressctl").path, ["list"], environment: noBus)
        XCTAssertEqual(missing.status, 69)
        XCTAssertTrue(missing.errors.contains("no session bus"), missing.errors)
    }

    func testReportingCommandsAndTheirEffect() throws {
        XCTAssertEqual(try ctl("start", "copy", "--title", "Copy", "--total", "10", "--unit", "files", "--cancellable",
                               "--pausable", "--app-id", "org.example.Files", "--lifetime", "persistent").status, 0)
        XCTAssertEqual(try ctl("set", "copy", "--completed", "4", "--message", "Pictures").status, 0)
        var get = try ctl("get", "copy")
        XCTAssertTrue(get.output.contains("Completed          4\n"), get.output)
        XCTAssertTrue(get.output.contains("Message            Pictures\n"))
        XCTAssertTrue(get.output.contains("Lifetime           persistent\n"))
        XCTAssertEqual(try ctl("set", "copy", "70%").status, 0)
        get = try ctl("get", "copy")
        XCTAssertTrue(get.output.contains("Fraction           0.7\n"), get.output)
        XCTAssertEqual(try ctl("pause", "copy").status, 0)
        XCTAssertEqual(try ctl("cancel", "copy").status, 0)
        XCTAssertTrue(try ctl("get", "copy").output.contains("CancelRequested    true\n"))
        XCTAssertEqual(try ctl("start", "scan", "--indeterminate").status, 0)
        XCTAssertEqual(try ctl("pulse", "scan").status, 0)
        XCTAssertEqual(
            try ctl("resume", "scan").errors,
            "progressctl: task 'scan' is not pausable (its job did not start it with pausable: true)\n")
        XCTAssertEqual(try ctl("fail", "scan", "no disk").status, 0)
        XCTAssertEqual(try ctl("finish", "copy").status, 0)
        XCTAssertEqual(try ctl("remove", "scan").status, 0)
        XCTAssertEqual(try ctl("list").output, """
            NAME   STATE      PERCENT   DETAIL
            copy   finished   100%      10 of 10 files

            """)
    }

    func testListAndGetInTheCallersLocaleAndAsJSON() throws {
        try ctl("start", "copy", "--title", "Copie", "--total", "10", "--unit", "files")
        try ctl("set", "copy", "--completed", "3")
        try ctl("start", "other")
        let french = try ctl("list", environment: ["LC_ALL": "fr_FR.UTF-8"])
        XCTAssertEqual(french.output, """
            NAME    STATE     PERCENT   DETAIL
            copy    running   30\u{A0}%      3 sur 10 fichiers
            other   running   0\u{A0}%

            """)
        let json = try ctl("list", "--json")
        let tasks = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
        XCTAssertEqual(tasks.map { $0["Name"] as? String }, ["copy", "other"])
        XCTAssertEqual(tasks[0]["Completed"] as? Int, 3)
        XCTAssertEqual(tasks[0]["Fraction"] as? Double, 0.3)
        XCTAssertEqual(tasks[0]["Indeterminate"] as? Bool, false)
        XCTAssertEqual(tasks[0]["SecondsRemaining"] as? Int, -1)
        XCTAssertEqual(Set(tasks[0].keys).count, 26)
        let one = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(try ctl("get", "copy", "--json").output.utf8)) as? [String: Any])
        XCTAssertEqual(one["Title"] as? String, "Copie")
        XCTAssertEqual(one["Detail"] as? String, "3 of 10 files")
    }

    /// Not a terminal: one line per change, following the task to its end.
    func testWatchFollowsATaskToItsEnd() throws {
        try ctl("start", "w", "--total", "4", "--unit", "items", "--title", "Work")
        let binary = BuildProducts.url(of: "progressctl").path
        let driver = Process()
        driver.executableURL = URL(fileURLWithPath: "/bin/sh")
        driver.arguments = [
            "-c", "for i in 1 2 3 4; do sleep 0.4; \"$0\" set w --completed $i; done; \"$0\" finish w", binary,
        ]
        driver.environment = bus.environment
        let driverExit = ProcessExit(driver)
        try driver.run()
        let watch = try ctl("watch", "w", "--interval", "0.1")
        driverExit.wait()
        XCTAssertEqual(watch.status, 0, watch.errors)
        let lines = watch.output.split(separator: "\n")
        XCTAssertEqual(lines.first, "Work: running 0% 0 of 4 items", "the title, not the name")
        XCTAssertEqual(lines.last, "Work: finished 100% 4 of 4 items")
        XCTAssertGreaterThanOrEqual(lines.count, 4, watch.output)
        XCTAssertFalse(watch.output.contains("\u{1B}"), "no terminal: no escape sequences")
        let failed = try ctl("start", "doomed")
        XCTAssertEqual(failed.status, 0)
        try ctl("fail", "doomed", "no disk")
        let doomed = try ctl("watch", "doomed")
        XCTAssertEqual(doomed.status, 1, "a task that did not finish")
        XCTAssertEqual(doomed.output, "doomed: failed 0% no disk\n", "no title: the name")
        XCTAssertEqual(try ctl("watch", "ghost").errors, "progressctl: no task is named 'ghost'\n")
    }

    func testRunReportsAndReturnsTheCommandsStatus() throws {
        let ok = try ctl(
            "run", "job", "--progress-regex", "([0-9]+)/([0-9]+)", "--", "sh", "-c",
            "echo 1/4; sleep 0.2; echo 3/4; echo to stderr >&2")
        XCTAssertEqual(ok.status, 0)
        XCTAssertEqual(ok.output, "1/4\n3/4\n", "output passes through")
        XCTAssertEqual(ok.errors, "to stderr\n")
        var get = try ctl("get", "job")
        XCTAssertTrue(get.output.contains("State              finished\n"), get.output)
        XCTAssertTrue(get.output.contains("Total              4\n"), get.output)

        let failing = try ctl("run", "bad", "--", "sh", "-c", "echo working; exit 7")
        XCTAssertEqual(failing.status, 7)
        get = try ctl("get", "bad")
        XCTAssertTrue(get.output.contains("State              failed\n"))
        XCTAssertTrue(get.output.contains("Message            sh exited with status 7\n"), get.output)
        XCTAssertTrue(get.output.contains("Lifetime           caller\n"))

        let percent = try ctl(
            "run", "pct", "--progress-regex", "([0-9]+)%", "--", "sh", "-c",
            "printf '10%%\\r55%%\\r'; sleep 0.3; exit 0")
        XCTAssertEqual(percent.status, 0)
        XCTAssertTrue(try ctl("get", "pct").output.contains("State              finished\n"))
        XCTAssertEqual(try ctl("run", "missing", "--", "/nonexistent/command").status, 127)
    }

    /// The command gets stdin, stdout and stderr, and no other descriptor progressctl had
    /// (here 7, left open by the shell that starts it), on pipes and on a terminal of its own
    /// (under script(1)); `ls` lists them, with 3, the folder it reads.
    func testRunPassesOnlyTheThreeStandardDescriptors() throws {
        let binary = BuildProducts.url(of: "progressctl").path
        var env = bus.environment
        env["LC_ALL"] = "C.UTF-8"
        let run = "exec 7</dev/null; \"$0\" run fds -- ls -1 /proc/self/fd"
        for (mode, line) in [("pipes", ["-c", run, binary]),
                             ("terminal", ["-c", "script -qec \"$1\" /dev/null", binary, run.replacingOccurrences(
                                 of: "\"$0\"", with: "'\(binary)'")])] {
            let result = try CommandResult.run("/bin/sh", line, environment: env)
            XCTAssertEqual(result.status, 0, "\(mode): \(result.errors)")
            // The terminal echoes the end of script's empty input as "^@" before the first line.
            let descriptors = result.output.split(whereSeparator: \.isNewline)
                .map { $0.replacingOccurrences(of: "^@", with: "") }.filter { Int($0) != nil }
            XCTAssertEqual(descriptors.sorted(), ["0", "1", "2", "3"], "\(mode): \(result.output)")
        }
    }

    func testPipeCopiesAndReportsBytes() throws {
        let input = String(repeating: "progress ", count: 20_000)
        let copied = try ctl("pipe", "data", "--size", "\(input.utf8.count)", stdin: input)
        XCTAssertEqual(copied.status, 0, copied.errors)
        XCTAssertEqual(copied.output.utf8.count, input.utf8.count)
        XCTAssertTrue(copied.output == input, "stdin is copied to stdout unchanged")
        let get = try ctl("get", "data")
        XCTAssertTrue(get.output.contains("State              finished\n"), get.output)
        XCTAssertTrue(get.output.contains("Completed          180000\n"), get.output)
        XCTAssertTrue(get.output.contains("Unit               bytes\n"))
        XCTAssertTrue(get.output.contains("Detail             180 kB of 180 kB\n"), get.output)
        let unknown = try ctl("pipe", "stream", stdin: "abc")
        XCTAssertEqual(unknown.output, "abc")
        XCTAssertTrue(try ctl("get", "stream").output.contains("Completed          3\n"))
        XCTAssertTrue(try ctl("get", "stream").output.contains("Total              0\n"), "a pipe's size is unknown")

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("file-\(UUID().uuidString)")
        try Data(repeating: 7, count: 5_000).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let fromFile = try CommandResult.run(
            "/bin/sh",
            ["-c", "\"$0\" pipe file < \"$1\" > /dev/null", BuildProducts.url(of: "progressctl").path, file.path],
            environment: bus.environment)
        XCTAssertEqual(fromFile.status, 0, fromFile.errors)
        XCTAssertTrue(
            try ctl("get", "file").output.contains("Total              5000\n"), "a regular file's size is known")
    }
}
