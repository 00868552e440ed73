import Foundation
import ProgressCommandLine
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

final class DaemonLifecycleTests: DaemonTestCase {
    override var startsBusAtSetUp: Bool { false }

    /// systemd's Restart=on-failure relies on this: a lost bus is an error exit.
    func testTheDaemonExitsNonZeroWhenTheBusGoesAway() throws {
        try startDaemon()
        stopBus()
        let (status, errors) = daemonExited()
        XCTAssertEqual(status, 1, "exits on its own")
        XCTAssertTrue(errors.contains("the bus connection closed"), errors)
        XCTAssertFalse(errors.contains("could not own"), "one reason, not two: \(errors)")
    }

    func testASecondDaemonDoesNotTakeTheName() throws {
        try startDaemon()
        let second = try CommandResult.run(BuildProducts.url(of: "progressd").path, [], environment: bus.environment)
        XCTAssertEqual(second.status, 1)
        XCTAssertTrue(
            second.errors.contains("could not own org.progressd.Progress1: another instance is running"), second.errors)
        XCTAssertEqual(daemon.stop(), 0, "the first one still runs, and exits 0 on SIGTERM")
        daemon = nil
    }

    /// A second daemon on the same state directory reads nothing of it: it finds the first
    /// one's lock, waits for the name's owner, and exits 1 naming the holder.
    func testASecondDaemonOnTheSameStateDirectoryStandsByAndEnds() throws {
        try startDaemon()
        let second = try CommandResult.run(
            BuildProducts.url(of: "progressd").path, ["--state-directory", bus.stateDirectory.path],
            environment: bus.environment.merging(["XDG_RUNTIME_DIR": bus.runtimeDirectory.path]) { $1 })
        XCTAssertEqual(second.status, 1)
        XCTAssertTrue(
            second.errors.contains("progressd \(daemon.process.processIdentifier) holds the state directory"),
            second.errors)
        XCTAssertTrue(
            second.errors.contains("could not own org.progressd.Progress1: another instance is running"), second.errors)
        XCTAssertEqual(daemon.stop(), 0, "the first one still runs, and exits 0 on SIGTERM")
        daemon = nil
    }

    func testBadFlagsAreUsageErrors() throws {
        let daemon = BuildProducts.url(of: "progressd").path
        let environment = ProcessInfo.processInfo.environment
        let rate = try CommandResult.run(daemon, ["--max-signals-per-second", "0"], environment: environment)
        XCTAssertEqual(rate.status, 64)
        XCTAssertTrue(
            rate.errors.contains("option '--max-signals-per-second' needs a whole number from 1 to 1000, not '0'"),
            rate.errors)
        let unknown = try CommandResult.run(daemon, ["--bogus"], environment: environment)
        XCTAssertEqual(unknown.status, 64)
        XCTAssertTrue(unknown.errors.contains("unknown option '--bogus' for 'progressd'"), unknown.errors)
        let version = try CommandResult.run(daemon, ["--version"], environment: environment)
        XCTAssertEqual(version.output, "progressd 0.1.0\n")
    }
}
