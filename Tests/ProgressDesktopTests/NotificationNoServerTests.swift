import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// No notification server on the bus: outcomes are not sent (no call fails, so nothing is
/// logged) and nothing waits for a server, however many outcomes there are.
final class NotificationNoServerTests: XCTestCase {
    func testOutcomesWithoutAServerSendNothingAndKeepNothing() throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let daemon = try DaemonProcess(bus: bus, arguments: ["--notifications", "progress", "--notify-after", "0"])
        let client = try bus.connect()
        let before = try daemon.residentBytes()
        for index in 0..<2_000 {
            let name = BusValue.string("t\(index)")
            _ = try client.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Start",
                                [name, .vardict([("title", .string("Task \(index)")), ("cancellable", .bool(true))])])
            _ = try client.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface,
                                index % 2 == 0 ? "Finish" : "Fail", index % 2 == 0 ? [name] : [name, .string("broken")])
            _ = try client.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Remove", [name])
        }
        let after = try daemon.residentBytes()
        XCTAssertLessThan(after - before, 8 << 20, "nothing grows while no server listens (\(before) -> \(after) bytes)")
        let log = daemon.stopAndReadErrors()
        XCTAssertFalse(log.contains("Notify failed"), "no call was made without a server:\n\(log)")
    }
}
