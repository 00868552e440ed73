import CGLib
import Foundation
import ProgressCore
@testable import ProgressDaemon
import XCTest

/// Fair service between callers: a busy caller past its share waits its turn, a quiet
/// caller's call runs ahead of what waits, one caller's calls keep their order, and nothing
/// of a caller stays once its connections have left.
final class FairCallQueueTests: XCTestCase {
    /// Runs the main loop until `done` or 20 s.
    private func spin(until done: () -> Bool) {
        let end = Date().addingTimeInterval(20)
        while !done() && Date() < end { g_main_context_iteration(nil, 0) }
    }

    func testAQuietCallerGoesAheadOfABusyCallersQueueAndOrderIsKept() {
        // A window far longer than the test, so the share is never given back meanwhile.
        let queue = FairCallQueue(shareMicros: 1_000, windowMicros: 600_000_000)
        let busy = queue.join(.process(1))
        let quiet = queue.join(.process(2))
        var ran: [String] = []
        queue.run(quiet, ClientID(":1.2")) { _ in ran.append("quiet0") }
        for index in 0..<5 {
            queue.run(busy, ClientID(":1.1")) { _ in
                ran.append("busy\(index)")
                usleep(2_000)  // more than the share
            }
        }
        queue.run(quiet, ClientID(":1.2")) { _ in ran.append("quiet1") }
        XCTAssertEqual(ran, ["quiet0", "busy0", "quiet1"], "past its share, the busy caller's calls wait; the quiet one's run at once")
        spin { ran.count == 7 }
        XCTAssertEqual(ran, ["quiet0", "busy0", "quiet1", "busy1", "busy2", "busy3", "busy4"], "one caller's calls keep their order")
    }

    func testACallWaitsWhileItsCallersEarlierCallsWait() {
        let queue = FairCallQueue(shareMicros: 1_000, windowMicros: 600_000_000)
        let busy = queue.join(.process(1))
        var ran: [Int] = []
        queue.run(queue.join(.process(2)), ClientID(":1.2")) { _ in }
        queue.run(busy, ClientID(":1.1")) { _ in ran.append(0); usleep(2_000) }
        queue.run(busy, ClientID(":1.1")) { _ in ran.append(1) }
        queue.run(busy, ClientID(":1.3")) { _ in ran.append(2) }
        XCTAssertEqual(ran, [0])
        spin { ran.count == 3 }
        XCTAssertEqual(ran, [0, 1, 2])
    }

    func testACallerAloneIsNeverQueued() {
        let queue = FairCallQueue(shareMicros: 1_000, windowMicros: 600_000_000)
        let alone = queue.join(.process(1))
        var ran: [Int] = []
        for index in 0..<4 { queue.run(alone, ClientID(":1.1")) { _ in ran.append(index); usleep(2_000) } }
        XCTAssertEqual(ran, [0, 1, 2, 3])
    }

    func testNothingOfACallerIsKeptOnceItsLastConnectionLeaves() {
        let queue = FairCallQueue()
        let first = queue.join(.process(7))
        let second = queue.join(.process(7))
        XCTAssertTrue(first === second, "connections of one process share one turn")
        XCTAssertEqual(queue.callerCount, 1)
        queue.leave(first)
        XCTAssertEqual(queue.callerCount, 1)
        queue.leave(second)
        XCTAssertEqual(queue.callerCount, 0)
    }
}
