import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// Reads that would pass what one D-Bus reply may carry are refused with LimitExceeded and
/// done in pages, and the daemon keeps its connection (issue 12: a 72 MB Snapshot took the
/// daemon off the bus). A lowered --max-reply-bytes stands for the 32 MiB default, so a
/// hundred tasks do what 10,000 with big texts did.
final class ReplyLimitTests: DaemonTestCase {
    static let limit = 65_536
    override var daemonArguments: [String] { ["--max-reply-bytes", String(Self.limit)] }

    func assertLimitExceeded(_ fragment: String, _ body: () throws -> Void, line: UInt = #line) {
        assertBusError("LimitExceeded", fragment, line: line, body)
    }

    func testATooBigReadIsRefusedAndPagedWhileTheDaemonServes() throws {
        let title = String(repeating: "t", count: 1_000)
        let names = (0..<60).map { String(format: "task-%03d", $0) }
        for name in names {
            try manager(
                "Start", [.string(name), .vardict([("title", .string(title)), ("lifetime", .string("persistent"))])])
        }
        assertLimitExceeded("SnapshotPage") { try self.manager("Snapshot", [.string("")]) }
        assertLimitExceeded("\(Self.limit) bytes") {
            try self.client.call(
                BusNames.busName, BusNames.managerPath, "org.freedesktop.DBus.ObjectManager", "GetManagedObjects")
        }
        // Still on the bus and serving.
        XCTAssertEqual(try manager("List").first?.array?.count, names.count)
        try manager("Start", [.string("after"), .vardict([])])

        // Pages are bounded by bytes, in name order, and together hold every task once.
        var seen: [String] = []
        var after = ""
        var pages = 0
        repeat {
            let reply = try manager("SnapshotPage", [.string(""), .string(after), .uint32(0)])
            let page = reply[0].dictionary ?? [:]
            XCTAssertFalse(page.isEmpty)
            seen += page.keys.sorted()
            after = reply[1].string ?? ""
            pages += 1
        } while !after.isEmpty && pages < 100
        XCTAssertGreaterThan(pages, 1)
        XCTAssertEqual(seen, (["after"] + names).sorted())
        let two = try manager("SnapshotPage", [.string(""), .string(""), .uint32(2)])
        XCTAssertEqual(two[0].dictionary?.keys.sorted(), ["after", "task-000"])
        XCTAssertEqual(two[1].string, "task-000")

        var environment = bus.environment
        environment["LC_ALL"] = "C.UTF-8"
        let list = try CommandResult.run(BuildProducts.url(of: "progressctl").path, ["list"], environment: environment)
        XCTAssertEqual(list.status, 0, list.errors)
        XCTAssertEqual(list.output.split(separator: "\n").count, names.count + 2, list.output)
        XCTAssertTrue(daemon.process.isRunning)
    }
}
