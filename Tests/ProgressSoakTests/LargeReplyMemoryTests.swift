import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// A large reply leaves the daemon as large as it was: its buffers go back to the system,
/// not into glibc's free lists.
final class LargeReplyMemoryTests: DaemonTestCase {
    /// Snapshots of 10,000 tasks (1,070,005 values) allowed, for replies of many megabytes.
    override var daemonArguments: [String] { ["--max-tasks-per-caller", "10000", "--max-reply-values", "2000000"] }

    /// `idleFor`: seconds before a task stalls or its lease ends, so that nothing changes
    /// while a test measures (a stall of every task is memory of its own).
    func startTasks(_ rounds: Int, idleFor seconds: UInt32? = nil) {
        let idle: [(String, BusValue)] = seconds.map {
            [("stall-seconds", .uint32($0)), ("lease-seconds", .uint32($0))]
        } ?? []
        for round in 0..<rounds {
            let results = client.callAll(
                BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Start",
                (0..<100).map { [
                    .string("task \(round)-\($0)"),
                    .vardict([("title", .string("Copying the photos of \(round)"))] + idle),
                ] })
            XCTAssertTrue(results.allSatisfy { if case .success = $0 { true } else { false } })
        }
    }

    func testTheDaemonShrinksBackAfterASnapshotOf5000Tasks() throws {
        startTasks(50)
        let before = try daemon.residentBytes()
        for _ in 0..<3 {
            let snapshot = try manager("Snapshot", [.string("")])
            XCTAssertEqual(snapshot.first?.dictionary?.count, 5_000)
            // The next reply on this connection leaves after the Snapshot's was written and freed.
            try manager("List")
        }
        let after = try daemon.residentBytes()
        XCTAssertLessThan(after - before, 12 << 20, "RSS \(before >> 20) MB before, \(after >> 20) MB after")
    }

    /// glibc maps a large block alone, but raises that size to the largest block freed: the
    /// replies after the first would be built in the heap, which keeps their size (the
    /// daemon fixes the size as it starts).
    func testSnapshotsInARowLeaveItAsLargeAsBefore() throws {
        startTasks(100, idleFor: 3_600)
        let before = try daemon.residentBytes()
        for _ in 0..<5 {
            XCTAssertEqual(try manager("Snapshot", [.string("")]).first?.dictionary?.count, 10_000)
        }
        try manager("List")  // written after the last Snapshot's reply
        let after = try daemon.residentBytes()
        XCTAssertLessThan(after - before, 2 << 20, "RSS \(before >> 20) MB before, \(after >> 20) MB after")
    }
}
