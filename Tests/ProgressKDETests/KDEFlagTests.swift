import ProgressClient
import ProgressTestSupport
import XCTest

/// `--no-kde-jobs` turns the KDE bridge off: progressd neither serves nor watches the job view names.
final class KDEFlagTests: XCTestCase {
    func testNoKDEJobsLeavesTheNamesAlone() throws {
        let bus = try PrivateBus()
        let daemon = try DaemonProcess(bus: bus, arguments: ["--no-kde-jobs"])
        let client = try bus.connect()
        _ = BusConnection.pump(seconds: 0.3) { false }
        for name in ["org.kde.JobViewServer", "org.kde.kuiserver"] {
            let reply = try client.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner", [.string(name)])
            XCTAssertEqual(reply.first, .bool(false), name)
        }
        XCTAssertEqual(daemon.stop(), 0)
        bus.stop()
    }
}
