import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// Two rounds of the same hostile calls (HostileCalls): the second does not grow the
/// daemon, and another client is answered throughout. Sizes depend on the machine's
/// allocator and load, so this runs in `make soak` (FUZZ_CALLS a round, 2,000 alone).
final class FuzzSoakTests: DaemonTestCase {
    override var daemonArguments: [String] { ["--max-tasks-per-caller", "64", "--max-tasks", "400"] }

    func testASecondRoundOfHostileCallsDoesNotGrowTheDaemon() throws {
        let first = HostileCalls(calls: 2_000)
        let witness = try bus.connect()
        var slowest = 0.0
        var outcomes: [String: Int] = [:]

        func round() throws {
            var calls = first
            for index in 0..<calls.calls {
                outcomes[calls.attemptNext(on: client), default: 0] += 1
                if index % 100 == 0 {
                    let began = Date()
                    try witness.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "List")
                    slowest = max(slowest, Date().timeIntervalSince(began))
                }
            }
        }

        try round()
        let firstRSS = try daemon.residentBytes()
        try round()
        let secondRSS = try daemon.residentBytes()
        print("fuzz: outcomes \(outcomes.sorted { $0.key < $1.key }); slowest answer to another client \(slowest)s; "
            + "RSS \(firstRSS) -> \(secondRSS)")
        XCTAssertTrue(daemon.process.isRunning, "the daemon survived; \(first.replay)")
        XCTAssertLessThan(slowest, 5, "another client was answered throughout; \(first.replay)")
        XCTAssertLessThan(Double(secondRSS), Double(firstRSS) * 1.15 + 4_000_000,
                          "a second round of the same calls does not grow the daemon; \(first.replay)")
    }
}
