import Foundation
import ProgressBus
import ProgressClient
import ProgressModel
import ProgressTestSupport
import XCTest

/// `progressctl run` with the real tools from Debian, each slowed down to a few seconds
/// (a throttled server or transport, a slow reader, -re), and no --progress-regex: the
/// task's fraction, polled from the daemon while the command runs, must be seen strictly
/// between 0 and 1 and never going back.
final class TerminalToolInteropTests: InteropTestCase {
    var progressctl: String { BuildProducts.url(of: "progressctl").path }

    /// Runs `script` (sh) in the scratch directory, with the built progressctl first on
    /// PATH; polls the task `name` until the script ends. Returns the fractions seen while
    /// the task was determinate and running, and the script's status.
    func follow(_ name: String, _ script: String, seconds: Double = 90) throws -> (fractions: [Double], status: Int32) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        var environment = self.environment
        environment["PATH"] = URL(fileURLWithPath: progressctl).deletingLastPathComponent().path + ":/usr/bin:/bin"
        process.environment = environment
        process.currentDirectoryURL = scratch
        let log = scratch.appendingPathComponent("\(name).log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = process.standardOutput
        try process.run()
        var fractions: [Double] = []
        let path = try BusNames.taskPath(TaskName(name))
        // One GetAll a poll: three Gets could read State and Indeterminate before the task
        // turned indeterminate and Fraction (then 0) after it.
        func properties() -> [String: BusValue] {
            (try? client.call(BusNames.busName, path, BusNames.propertiesInterface, "GetAll",
                              [.string(BusNames.taskInterface)]))?.first?.dictionary ?? [:]
        }
        let ended = BusConnection.pump(seconds: seconds) {
            let task = properties()
            if task["State"]?.string == "running", task["Indeterminate"]?.bool == false,
               let fraction = task["Fraction"]?.double, fraction != fractions.last {
                fractions.append(fraction)
            }
            return !process.isRunning
        }
        if !ended { process.terminate() }
        process.waitUntilExit()
        XCTAssertTrue(ended, "\(name) did not end: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
        return (fractions, process.terminationStatus)
    }

    func assertRoseWhileRunning(
        _ seen: (fractions: [Double], status: Int32), _ name: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        let log = (try? String(contentsOf: scratch.appendingPathComponent("\(name).log"), encoding: .utf8)) ?? ""
        XCTAssertEqual(seen.status, 0, log, file: file, line: line)
        let between = seen.fractions.filter { $0 > 0 && $0 < 1 }
        XCTAssertGreaterThanOrEqual(between.count, 2, "\(name): \(seen.fractions)\n\(log)", file: file, line: line)
        XCTAssertEqual(
            seen.fractions, seen.fractions.sorted(), "\(name) went back: \(seen.fractions)", file: file, line: line)
        let state = (try? client.call(
            BusNames.busName, BusNames.taskPath(TaskName(name)), BusNames.propertiesInterface, "Get",
            [.string(BusNames.taskInterface), .string("State")]))?.first?.unboxed.string
        XCTAssertEqual(state, "finished", name, file: file, line: line)
    }

    /// `count` bytes from /dev/urandom in the scratch directory (incompressible, so that
    /// gzip's output is as slow as its reader).
    func randomFile(_ name: String, bytes count: Int) throws {
        let result = try run(
            "/bin/sh", ["-c", "head -c \(count) /dev/urandom > \"$0\"", scratch.appendingPathComponent(name).path])
        XCTAssertEqual(result.status, 0)
    }

    /// The trickle server (helpers/trickle-http.py): `size` bytes, 64 KiB every `delay` s.
    func trickleServer(size: Int, delay: Double) throws -> String {
        let web = try helper("trickle-http.py", ["\(size)", "\(delay)"], readsCommands: true)
        return String(try XCTUnwrap(web.waitForLine("port "))?.dropFirst(5) ?? "")
    }

    /// rsync prints --info=progress2 only on a terminal in its foreground: under script(1),
    /// progressctl gives it a terminal of its own.
    func testRsyncProgress2OnATerminal() throws {
        try FileManager.default.createDirectory(
            at: scratch.appendingPathComponent("src"), withIntermediateDirectories: true)
        try randomFile("src/a.bin", bytes: 2_000_000)
        try randomFile("src/b.bin", bytes: 2_000_000)
        let seen = try follow(
            "rsync", "script -qfec 'progressctl run rsync -- rsync -a --info=progress2 --no-inc-recursive "
                + "--bwlimit=1000 src/ dst/' /dev/null < /dev/null")
        assertRoseWhileRunning(seen, "rsync")
    }

    func testCurlBarAndWgetDots() throws {
        let port = try trickleServer(size: 3_000_000, delay: 0.07)
        assertRoseWhileRunning(
            try follow("curl", "progressctl run curl -- curl -# -o curl.bin http://127.0.0.1:\(port)/f"), "curl")
        assertRoseWhileRunning(
            try follow("wget", "progressctl run wget -- wget -O wget.bin http://127.0.0.1:\(port)/f"), "wget")
    }

    /// git clone over a local transport whose upload-pack is slowed by pv.
    func testGitCloneProgress() throws {
        let setup = """
            git init -q repo && cd repo && for i in $(seq 40); do head -c 50000 /dev/urandom > f$i; done && git add . &&
            git -c user.email=t@example.org -c user.name=t commit -qm files
            """
        XCTAssertEqual(try run("/bin/sh", ["-c", "cd \"$0\" && " + setup, scratch.path]).status, 0)
        let uploadPack = #"slow() { git-upload-pack "$1" | pv -q -L 500k; }; slow"#
        assertRoseWhileRunning(
            try follow("git", "progressctl run git -- git clone --progress --no-local --upload-pack '\(uploadPack)' "
                + "repo clone"),
            "git")
    }

    /// dd reading a slow pipe: its total from count= and bs=.
    func testDdStatusProgress() throws {
        try randomFile("big.bin", bytes: 4_194_304)
        let script = "mkfifo slow && (pv -q -L 700k big.bin > slow &) && progressctl run dd -- dd if=slow of=copy.bin "
            + "bs=64k count=64 iflag=fullblock status=progress"
        assertRoseWhileRunning(try follow("dd", script), "dd")
    }

    func testPvNumeric() throws {
        try randomFile("big.bin", bytes: 3_000_000)
        assertRoseWhileRunning(try follow("pv", "progressctl run pv -- pv -n -L 1m big.bin > copy.bin"), "pv")
    }

    func testFfmpegProgressOfAGeneratedClip() throws {
        let command = "ffmpeg -nostdin -hide_banner -re -f lavfi -i testsrc=size=160x120:rate=25 -t 4 -c:v mpeg4 "
            + "-progress pipe:1 -nostats -y clip.mp4"
        assertRoseWhileRunning(try follow("ffmpeg", "progressctl run ffmpeg -- \(command) > /dev/null"), "ffmpeg")
    }

    /// gzip and tar print nothing: the position of the file they read (/proc), while a slow
    /// reader of their output holds them back.
    func testGzipAndTarByFilePosition() throws {
        try randomFile("big.bin", bytes: 8_000_000)
        assertRoseWhileRunning(
            try follow("gzip", "progressctl run gzip -- gzip -1 -c big.bin | pv -q -L 2m > big.bin.gz"), "gzip")
        assertRoseWhileRunning(
            try follow("tar", "progressctl run tar -- tar -cf - big.bin | pv -q -L 2m > big.tar"), "tar")
    }

    /// No package here emits OSC 9;4 (systemd 252 predates it, pytest 7 and no cargo): an
    /// emitter written from ConEmu's description, both terminators.
    func testOSC94Emitter() throws {
        let script = #"for i in 10 20 30 40 50 60 70 80 90; do if [ $((i % 20)) = 0 ]; "#
            + #"then printf '\033]9;4;1;%d\007' $i; else printf '\033]9;4;1;%d\033\\' $i; fi; "#
            + #"sleep 0.3; done; printf '\033]9;4;0;\033\\'"#
        assertRoseWhileRunning(
            try follow(
                "osc",
                "progressctl run osc -- sh -c '\(script.replacingOccurrences(of: "'", with: "'\\''"))' > osc.out"),
            "osc")
        // Off a terminal the command's output is kept as it was.
        let kept = try Data(contentsOf: scratch.appendingPathComponent("osc.out"))
        XCTAssertTrue(kept.starts(with: Data("\u{1B}]9;4;1;10\u{1B}\\".utf8)))
    }
}
