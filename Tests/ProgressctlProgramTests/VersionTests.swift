import Foundation
import ProgressBus
import ProgressTestSupport
import XCTest

/// The three programs' `--version` against the version a running daemon reports on the
/// bus, so that a bug report's "progressctl --version" says what the daemon says.
final class VersionTests: DaemonTestCase {
    override var startsBusAtSetUp: Bool { false }

    func testEveryProgramPrintsTheManagersVersionProperty() throws {
        try startDaemon()
        let reply = try client.call(
            BusNames.busName, BusNames.managerPath, BusNames.propertiesInterface, "Get",
            [.string(BusNames.managerInterface), .string("Version")])
        let version = try XCTUnwrap(reply.first?.unboxed.string)
        XCTAssertFalse(version.isEmpty)
        for program in ["progressd", "progressctl", "progress-render"] {
            let result = try CommandResult.run(
                BuildProducts.url(of: program).path, ["--version"], environment: bus.environment)
            XCTAssertEqual(result.status, 0, program)
            XCTAssertEqual(result.output, "\(program) \(version)\n", program)
            XCTAssertEqual(result.errors, "", program)
        }
    }

    /// `--version` is an option of the program, not of its commands: anywhere else it is a
    /// usage mistake, as any unknown option is.
    func testVersionOnlyAlone() throws {
        let environment = ProcessInfo.processInfo.environment
        let ctl = try CommandResult.run(
            BuildProducts.url(of: "progressctl").path, ["list", "--version"], environment: environment)
        XCTAssertEqual(ctl.status, 64)
        XCTAssertTrue(ctl.errors.contains("unknown option '--version'"), ctl.errors)
    }
}
