import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// One process with thousands of distinct URIs: its bars count toward its task cap and its
/// entries toward its LauncherEntry cap (both charged to the process, in the one ledger),
/// the rest is dropped with one log line each, and another process is not affected.
final class LauncherEntryCapTests: LauncherEntryTestCase {
    override var daemonArguments: [String] { ["--max-tasks-per-caller", "3"] }

    func testThousandsOfUrisFromOneProcessStopAtItsCaps() throws {
        // Two connections of one process are one process.
        let floods = [try bus.connect(), try bus.connect()]
        for index in 0..<2_000 {
            try floods[index % 2].emit(path: Self.entryPath, interface: Self.interface, member: "Update",
                                       [.string("application://org.example.Flood\(index).desktop"),
                                        .vardict([("progress", .double(0.5)), ("progress-visible", .bool(true))])])
        }
        for flood in floods { flood.flush() }
        try updateFromAnotherProcess("application://org.example.Backup.desktop", progress: 0.2)
        let tasks = try waitForTasks(10) { $0["launcher/org.example.Backup"] != nil }
        XCTAssertEqual(
            tasks.keys.filter { $0.hasPrefix("launcher/org.example.Flood") }.count, 3, "the process's task cap")
        XCTAssertEqual(
            tasks["launcher/org.example.Backup"]?["State"], .string("running"), "another process has caps of its own")
        let log = daemon.stopAndReadErrors()
        daemon = nil
        XCTAssertEqual(log.components(separatedBy: "has started 3 tasks; the limit per process").count - 1, 1, log)
        XCTAssertEqual(
            log.components(separatedBy: "reports 100 LauncherEntry applications; "
                + "the limit per process (a sandboxed app is one) is 100")
                .count - 1, 1, log)
    }
}
