import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// No notification server on the bus: however many outcomes there are, nothing is kept
/// for a server that is not there (NotificationNoServerTests checks that none is called).
final class NotificationNoServerSoakTests: DaemonTestCase {
    override var daemonArguments: [String] { ["--notifications", "progress", "--notify-after", "0"] }

    func testOutcomesWithoutAServerKeepNothing() throws {
        let before = try daemon.residentBytes()
        for index in 0..<2_000 {
            let name = BusValue.string("t\(index)")
            try manager("Start", [name, .vardict([("title", .string("Task \(index)")), ("cancellable", .bool(true))])])
            try manager(index % 2 == 0 ? "Finish" : "Fail", index % 2 == 0 ? [name] : [name, .string("broken")])
            try manager("Remove", [name])
        }
        let after = try daemon.residentBytes()
        XCTAssertLessThan(
            after - before, 8 << 20, "nothing grows while no server listens (\(before) -> \(after) bytes)")
        let log = daemon.stopAndReadErrors()
        XCTAssertFalse(log.contains("Notify failed"), "no call was made without a server:\n\(log)")
    }
}
