import CGLib
import Foundation
import ProgressBus
import ProgressModel
@testable import ProgressDaemon
import ProgressTestSupport
import XCTest

/// Fair service between callers: a busy caller past its share waits its turn, a quiet
/// caller's call runs ahead of what waits, waiting callers take turns of one share each, a
/// share comes back with the next window, one caller's calls keep their order, and nothing
/// of a caller stays once its connections have left. The queue reads a `ManualClock` that
/// the calls themselves move, so each call "takes" exactly the time the test says.
final class FairCallSchedulerTests: XCTestCase {
    private let clock = ManualClock()

    /// Runs the main loop until `done`, or gives up after 20 s (a hang, not a timing).
    private func spin(until done: () -> Bool) {
        let end = Date().addingTimeInterval(20)
        while !done() && Date() < end { g_main_context_iteration(nil, 0) }
    }

    /// A queue whose window is far longer than any test, so no share is given back meanwhile.
    private func queueWithoutWindows() -> FairCallScheduler {
        FairCallScheduler(clock: MainLoopClock(realTimeFrom: clock), shareMicros: 1_000, windowMicros: 600_000_000)
    }

    func testAQuietCallerGoesAheadOfABusyCallersQueueAndOrderIsKept() {
        let queue = queueWithoutWindows()
        let busy = queue.join(.process(1))
        let quiet = queue.join(.process(2))
        var ran: [String] = []
        queue.run(quiet, ClientID(":1.2")) { _ in ran.append("quiet0") }
        for index in 0..<5 {
            queue.run(busy, ClientID(":1.1")) { [clock] _ in
                ran.append("busy\(index)")
                clock.monotonicMicros += 2_000  // more than the share
            }
        }
        queue.run(quiet, ClientID(":1.2")) { _ in ran.append("quiet1") }
        XCTAssertEqual(
            ran, ["quiet0", "busy0", "quiet1"],
            "past its share, the busy caller's calls wait; the quiet one's run at once")
        spin { ran.count == 7 }
        XCTAssertEqual(
            ran, ["quiet0", "busy0", "quiet1", "busy1", "busy2", "busy3", "busy4"],
            "one caller's calls keep their order")
    }

    func testACallWaitsWhileItsCallersEarlierCallsWait() {
        let queue = queueWithoutWindows()
        let busy = queue.join(.process(1))
        var ran: [Int] = []
        queue.run(queue.join(.process(2)), ClientID(":1.2")) { _ in }
        queue.run(busy, ClientID(":1.1")) { [clock] _ in ran.append(0); clock.monotonicMicros += 2_000 }
        queue.run(busy, ClientID(":1.1")) { _ in ran.append(1) }
        queue.run(busy, ClientID(":1.3")) { _ in ran.append(2) }
        XCTAssertEqual(ran, [0])
        spin { ran.count == 3 }
        XCTAssertEqual(ran, [0, 1, 2])
    }

    func testWaitingCallersTakeTurnsOfOneShareEach() {
        let queue = queueWithoutWindows()
        let first = queue.join(.process(1))
        let second = queue.join(.process(2))
        var ran: [String] = []
        // 400 µs a call against a share of 1 000 µs: three calls a share (the third starts
        // at 800 µs, still inside it).
        for index in 0..<8 {
            for (name, turn) in [("a", first), ("b", second)] {
                queue.run(turn, ClientID(":1.\(name)")) { [clock] _ in
                    ran.append("\(name)\(index)")
                    clock.monotonicMicros += 400
                }
            }
        }
        XCTAssertEqual(ran, ["a0", "b0", "a1", "b1", "a2", "b2"], "both run at once until each has used its share")
        spin { ran.count == 16 }
        XCTAssertEqual(ran.dropFirst(6), ["a3", "a4", "a5", "b3", "b4", "b5", "a6", "a7", "b6", "b7"],
                       "in rotation, each caller runs for one share, then the next caller's turn")
    }

    func testAShareComesBackInTheNextWindowAndContentionIsRememberedForOne() {
        let queue = FairCallScheduler(
            clock: MainLoopClock(realTimeFrom: clock), shareMicros: 1_000, windowMicros: 10_000)
        let busy = queue.join(.process(1))
        let quiet = queue.join(.process(2))
        var ran: [String] = []
        let busyCall = { [clock] (name: String) in
            queue.run(busy, ClientID(":1.1")) { _ in ran.append(name); clock.monotonicMicros += 2_000 }
        }
        queue.run(quiet, ClientID(":1.2")) { _ in ran.append("quiet0") }
        busyCall("busy0")
        clock.monotonicMicros += 10_000
        // A new window, the busy caller alone in it: its share is whole again, and the quiet
        // caller of the last window still makes this contention.
        busyCall("busy1")
        busyCall("busy2")
        XCTAssertEqual(ran, ["quiet0", "busy0", "busy1"])
        spin { ran.count == 4 }
        XCTAssertEqual(ran.last, "busy2")
    }

    func testACallerAloneIsNeverQueued() {
        let queue = queueWithoutWindows()
        let alone = queue.join(.process(1))
        var ran: [Int] = []
        for index in 0..<4 {
            queue.run(alone, ClientID(":1.1")) { [clock] _ in ran.append(index); clock.monotonicMicros += 2_000 }
        }
        XCTAssertEqual(ran, [0, 1, 2, 3])
    }

    func testNothingOfACallerIsKeptOnceItsLastConnectionLeaves() {
        let queue = FairCallScheduler(clock: MainLoopClock(realTimeFrom: clock))
        let first = queue.join(.process(7))
        let second = queue.join(.process(7))
        XCTAssertTrue(first === second, "connections of one process share one turn")
        XCTAssertEqual(queue.callerCount, 1)
        queue.leave(first)
        XCTAssertEqual(queue.callerCount, 1)
        queue.leave(second)
        XCTAssertEqual(queue.callerCount, 0)
    }

    /// A call that goes on in steps: its caller's later calls wait for its last step, and
    /// another caller's calls run between the steps (each step is past the share here).
    func testACallInStepsHoldsItsCallersLaterCallsAndLetsOthersIn() {
        let queue = queueWithoutWindows()
        let reader = queue.join(.process(1))
        let other = queue.join(.process(2))
        var ran: [String] = []
        var stepsLeft = 3
        queue.run(reader, ClientID(":1.1")) { [clock] _ in
            ran.append("read")
            XCTAssertNotNil(queue.continueCall {
                stepsLeft -= 1
                ran.append("step")
                clock.monotonicMicros += 2_000
                return stepsLeft == 0 ? .done : .more
            })
        }
        queue.run(reader, ClientID(":1.1")) { _ in ran.append("reader's next") }
        XCTAssertEqual(ran, ["read"], "the reader's next call waits for the steps")
        spin { ran.contains("step") }
        queue.run(other, ClientID(":1.2")) { _ in ran.append("other") }
        spin { ran.count == 6 }
        XCTAssertEqual(ran, ["read", "step", "other", "step", "step", "reader's next"])
        XCTAssertNil(queue.continueCall { .done }, "no call is running")
        queue.leave(reader)
        queue.leave(other)
        XCTAssertEqual(queue.callerCount, 0)
    }

    /// What a caller runs past its share in the rotation (a step that ends in a reply converted
    /// whole) is a debt: it sits out rounds until another waiting caller has had as long.
    func testACallerThatRanPastItsShareSitsOutUntilTheOthersHadAsLong() {
        let queue = queueWithoutWindows()
        let reader = queue.join(.process(1))
        let other = queue.join(.process(2))
        var ran: [String] = []
        var steps = 0
        // The other caller has used its share: its next calls wait in the rotation.
        queue.run(other, ClientID(":1.2")) { [clock] _ in clock.monotonicMicros += 2_000 }
        queue.run(reader, ClientID(":1.1")) { [clock] _ in
            XCTAssertNotNil(queue.continueCall {
                steps += 1
                ran.append("step\(steps)")
                clock.monotonicMicros += steps == 1 ? 10_000 : 100  // ten shares, then a tenth of one
                return steps == 3 ? .done : .more
            })
        }
        for index in 0..<30 {
            queue.run(other, ClientID(":1.2")) { [clock] _ in
                ran.append("other\(index)")
                clock.monotonicMicros += 500
            }
        }
        spin { ran.count == 33 }
        let between = (ran.firstIndex(of: "step2") ?? 0) - (ran.firstIndex(of: "step1") ?? 0) - 1
        // Two calls a round: nine rounds sat out and the one after the long step.
        XCTAssertEqual(between, 20, "the other caller's calls between the long step and the next: \(ran)")
    }

    /// Three callers that have used their share, each with a call that takes 3 ms (a reply
    /// converted whole) waiting in the rotation: the order in which they and a call made ready
    /// `readyAfter` µs after the first one's end (a timer, as a call handed on by GDBus) run.
    /// With `late`, that call also queues a call of a fourth caller past its share, and
    /// another timer is ready `late` µs after the first one's end.
    private func orderWithACallReadyAfterTheFirst(readyAfter delay: Int64, late: Int64? = nil) -> [String] {
        let queue = queueWithoutWindows()
        let callers = ["a", "b", "c"].enumerated().map { ($1, queue.join(.process(UInt32($0 + 1)))) }
        var ran: [String] = []
        let lateTimer = MainLoopTimer(clock: MainLoopClock(realTimeFrom: clock)) { ran.append("late") }
        let ready = MainLoopTimer(clock: MainLoopClock(realTimeFrom: clock)) { [clock] in
            ran.append("ready")
            guard late != nil else { return }
            let fourth = queue.join(.process(4))
            queue.run(fourth, ClientID(":1.d")) { _ in clock.monotonicMicros += 2_000 }
            queue.run(fourth, ClientID(":1.d")) { _ in ran.append("d") }
        }
        for (name, turn) in callers {
            queue.run(turn, ClientID(":1.\(name)")) { [clock] _ in clock.monotonicMicros += 2_000 }
        }
        for (name, turn) in callers {
            queue.run(turn, ClientID(":1.\(name)")) { [clock] _ in
                ran.append(name)
                clock.monotonicMicros += 3_000
                guard name == "a" else { return }
                ready.arm(at: clock.monotonicMicros + delay)
                if let late { lateTimer.arm(at: clock.monotonicMicros + late) }
            }
        }
        spin { ran.count == (late == nil ? 4 : 6) }
        return ran
    }

    /// A round that has held the main loop for a share lets it take in what arrived before the
    /// next caller's turn: what was made ready during a long call runs before the other
    /// callers' long calls, not after all of them.
    func testARoundLetsTheMainLoopInOnceItHeldItForAShare() {
        XCTAssertEqual(orderWithACallReadyAfterTheFirst(readyAfter: 0), ["a", "ready", "b", "c"])
    }

    /// The rest of the round then waits as long as the round held the loop: a call that GDBus
    /// hands on late (its worker thread was held off the connection's lock while a reply was
    /// converted) runs before the next caller's turn, and the rotation takes at most half the
    /// loop. Here the late call is ready 2.5 ms after a round that held the loop 3 ms.
    func testARoundWaitsAsLongAsItHeldTheLoop() {
        XCTAssertGreaterThan(3_000, FairCallScheduler.handOffMicros)
        XCTAssertEqual(orderWithACallReadyAfterTheFirst(readyAfter: 2_500), ["a", "ready", "b", "c"])
    }

    /// A caller that enters the rotation during the pause does not cut it short.
    func testACallerEnteringTheRotationWaitsForThePauseToEnd() {
        XCTAssertEqual(orderWithACallReadyAfterTheFirst(readyAfter: 500, late: 2_500),
                       ["a", "ready", "late", "b", "c", "d"])
    }

    /// A step that parks takes its caller out of the rotation, its later calls still behind
    /// it, until it is resumed.
    func testAParkedStepWaitsForResume() {
        let queue = queueWithoutWindows()
        let reader = queue.join(.process(1))
        var ran: [String] = []
        var mayGoOn = false
        var turn: FairCallScheduler.Turn?
        queue.run(reader, ClientID(":1.1")) { _ in
            turn = queue.continueCall {
                ran.append(mayGoOn ? "went on" : "parked")
                return mayGoOn ? .done : .parked
            }
        }
        queue.run(reader, ClientID(":1.1")) { _ in ran.append("next") }
        spin { ran == ["parked"] }
        // A round trip of the main loop, with the reader out of the rotation.
        var rounds = 0
        queue.run(queue.join(.process(2)), ClientID(":1.2")) { _ in rounds += 1 }
        for _ in 0..<10 { g_main_context_iteration(nil, 0) }
        XCTAssertEqual(ran, ["parked"])
        mayGoOn = true
        queue.resume(turn!)
        spin { ran.count == 3 }
        XCTAssertEqual(ran, ["parked", "went on", "next"])
        XCTAssertEqual(rounds, 1)
    }
}
