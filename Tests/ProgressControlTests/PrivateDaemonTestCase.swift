import ProgressTestSupport
import XCTest

/// A test with its own private bus and progressd on it, for running the built progressctl.
class PrivateDaemonTestCase: XCTestCase {
    var bus: PrivateBus!
    var daemon: DaemonProcess!

    override func setUpWithError() throws {
        bus = try PrivateBus()
        daemon = try DaemonProcess(bus: bus)
    }

    override func tearDown() {
        daemon?.stop()
        bus?.stop()
    }
}
