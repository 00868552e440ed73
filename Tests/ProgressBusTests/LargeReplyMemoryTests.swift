import Foundation
import ProgressBus
import ProgressClient
import XCTest

/// A large reply leaves the daemon as large as it was: freed GVariants go back to the
/// system, not into GLib's slice magazines or glibc's free lists.
final class LargeReplyMemoryTests: DaemonTestCase {
    override var daemonArguments: [String] { ["--max-tasks-per-caller", "10000"] }

    func testTheDaemonShrinksBackAfterASnapshotOf5000Tasks() throws {
        for round in 0..<50 {
            let results = client.callAll(
                BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Start",
                (0..<100).map { [.string("task \(round)-\($0)"), .vardict([("title", .string("Copying the photos of \(round)"))])] })
            XCTAssertTrue(results.allSatisfy { if case .success = $0 { true } else { false } })
        }
        let before = try daemon.residentBytes()
        for _ in 0..<3 {
            let snapshot = try manager("Snapshot", [.string("")])
            XCTAssertEqual(snapshot.first?.dictionary?.count, 5_000)
            Thread.sleep(forTimeInterval: 1.0)
        }
        let after = try daemon.residentBytes()
        // Kept in GLib's slice allocator, the three replies left about 70 MB behind.
        XCTAssertLessThan(after - before, 12 << 20, "RSS \(before >> 20) MB before, \(after >> 20) MB after")
    }
}
