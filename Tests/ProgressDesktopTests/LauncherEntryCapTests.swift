import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// One sender with thousands of distinct URIs: counted toward the per-connection task cap,
/// the rest dropped with one log line, and the daemon keeps serving.
final class LauncherEntryCapTests: LauncherEntryTestCase {
    override var daemonArguments: [String] { ["--max-tasks-per-caller", "3"] }

    func testThousandsOfUrisFromOneSenderStopAtTheCap() throws {
        let flood = try bus.connect()
        for index in 0..<2_000 {
            try flood.emit(path: Self.entryPath, interface: Self.interface, member: "Update",
                           [.string("application://org.example.Flood\(index).desktop"),
                            .vardict([("progress", .double(0.5)), ("progress-visible", .bool(true))])])
        }
        flood.flush()
        let other = try bus.connect()
        try update(other, "application://org.example.Backup.desktop", [("progress", .double(0.2)), ("progress-visible", .bool(true))])
        let tasks = try waitForTasks(10) { $0["launcher/org.example.Backup"] != nil }
        XCTAssertEqual(tasks.keys.filter { $0.hasPrefix("launcher/org.example.Flood") }.count, 3, "the per-connection cap")
        XCTAssertNotNil(tasks["launcher/org.example.Backup"], "another sender has a cap of its own")
        let log = daemon.stopAndReadErrors()
        daemon = nil
        XCTAssertEqual(log.components(separatedBy: "reports more than 3 applications").count - 1, 1, log)
    }
}
