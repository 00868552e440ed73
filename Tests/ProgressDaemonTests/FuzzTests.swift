import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// Random and hostile calls (HostileCalls): each gets success or a named error, and the
/// daemon survives. `make test` runs a round of 1,000; `make soak` runs FuzzSoakTests,
/// which also watches the daemon's size and another client's answers.
final class FuzzTests: DaemonTestCase {
    override var daemonArguments: [String] { ["--max-tasks-per-caller", "64", "--max-tasks", "400"] }

    func testHostileCallsGetNamedErrorsAndNothingBreaks() throws {
        var calls = HostileCalls(calls: 1_000)
        var outcomes: [String: Int] = [:]
        for _ in 0..<calls.calls { outcomes[calls.attemptNext(on: client), default: 0] += 1 }
        print("fuzz: outcomes \(outcomes.sorted { $0.key < $1.key })")
        XCTAssertTrue(daemon.process.isRunning, "the daemon survived; \(calls.replay)")
        XCTAssertNoThrow(try manager("List"), "and answers; \(calls.replay)")
        XCTAssertGreaterThan(
            outcomes["success", default: 0], calls.calls / 20,
            "the fuzz also reaches the success paths; \(calls.replay)")
        XCTAssertGreaterThan(outcomes.count, 5, "and many kinds of error; \(calls.replay)")
    }

    /// A Start flood from one connection stops at its cap with LimitExceeded, and the
    /// daemon still serves others.
    func testAStartFloodStopsAtTheCap() throws {
        var refused = 0
        for index in 0..<200 {
            do {
                try start("flood \(index)")
            } catch let error as BusCallError {
                XCTAssertEqual(error.name, BusNames.errorPrefix + "LimitExceeded")
                refused += 1
            }
        }
        XCTAssertEqual(refused, 200 - 64)
        // The cap is per process: another connection of this process is refused too, and
        // another process is served.
        XCTAssertThrowsError(try start("other", on: try bus.connect()))
        let other = try CommandResult.run(
            "gdbus",
            ["call", "--session", "--dest", BusNames.busName, "--object-path", BusNames.managerPath,
             "--method", "\(BusNames.managerInterface).Start", "other", "{}"],
            environment: bus.environment)
        XCTAssertEqual(other.status, 0, other.errors)
    }
}
