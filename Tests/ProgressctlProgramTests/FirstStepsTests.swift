import Foundation
import ProgressTestSupport
import XCTest

/// The README's first steps as a new user takes them: `make run` says where progressctl is
/// and the line that puts it on PATH, and that line makes the examples work as written;
/// `make install PREFIX=$HOME/.local` puts everything where a user's session finds it.
final class FirstStepsTests: DaemonTestCase {
    override var startsBusAtSetUp: Bool { false }
    let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func testMakeRunPrintsThePathLineThatMakesTheExamplesWork() throws {
        try startDaemon()
        // With a session bus, make run's script says where progressctl is, then runs the daemon
        // (here with --version, so that it returns at once).
        let binary = BuildProducts.url(of: "progressd").path
        let run = try CommandResult.run(
            "/bin/sh", [root.appendingPathComponent("scripts/run-daemon.sh").path, binary, "--version"],
            environment: bus.environment)
        XCTAssertEqual(run.status, 0, run.errors)
        let exportLine = try XCTUnwrap(
            run.errors.split(separator: "\n").first { $0.contains("export PATH=") }, run.errors)
        // A shell without the build folder on PATH, then the printed line, then a README example.
        var environment = bus.environment
        environment["PATH"] = "/usr/bin:/bin"
        environment["LC_ALL"] = "C.UTF-8"
        let script = "\(exportLine)\nprogressctl start demo --title Demo --total 4 --unit files\n"
            + "progressctl set demo --completed 2\nprogressctl list"
        let result = try CommandResult.run("/bin/bash", ["-euo", "pipefail", "-c", script], environment: environment)
        XCTAssertEqual(result.status, 0, result.errors)
        XCTAssertEqual(result.output, "NAME   STATE     PERCENT   DETAIL\ndemo   running   50%       2 of 4 files\n")
    }

    func testMakeInstallIntoHomeDotLocalUsesTheUsersDirectories() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("home-\(UUID().uuidString)").path
        // -n: what make install would run, without building or installing anything.
        let result = try CommandResult.run(
            "make", ["-n", "-C", root.path, "install", "HOME=\(home)", "PREFIX=\(home)/.local"],
            environment: ProcessInfo.processInfo.environment)
        XCTAssertEqual(result.status, 0, result.errors)
        for destination in ["\(home)/.local/bin/progressctl", "\(home)/.local/bin/progressd",
                            "\(home)/.local/share/dbus-1/services/org.progressd.Progress1.service",
                            "\(home)/.local/share/systemd/user/progressd.service"] {
            XCTAssertTrue(
                result.output.contains("\"\(destination)\""), "make install writes \(destination):\n\(result.output)")
        }
    }
}
