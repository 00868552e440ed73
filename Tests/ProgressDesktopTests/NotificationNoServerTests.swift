import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// No notification server on the bus: outcomes are not sent (no call fails, so nothing is
/// logged) and nothing waits for a server. NotificationNoServerSoakTests (`make soak`)
/// adds that the daemon does not grow over thousands of outcomes.
final class NotificationNoServerTests: DaemonTestCase {
    override var daemonArguments: [String] { ["--notifications", "progress", "--notify-after", "0"] }

    func testOutcomesWithoutAServerSendNothing() throws {
        for index in 0..<200 {
            let name = BusValue.string("t\(index)")
            try manager("Start", [name, .vardict([("title", .string("Task \(index)")), ("cancellable", .bool(true))])])
            try manager(index % 2 == 0 ? "Finish" : "Fail", index % 2 == 0 ? [name] : [name, .string("broken")])
            try manager("Remove", [name])
        }
        let log = daemon.stopAndReadErrors()
        XCTAssertFalse(log.contains("Notify failed"), "no call was made without a server:\n\(log)")
    }
}
