import CGLib
import ProgressBus
import ProgressClient
import ProgressModel
import XCTest

/// MainLoopTimer on GLib's clock, where every timer of a priority runs from one shared GLib
/// source: each fires once, never before its deadline, in deadline order (also when due in
/// one pass); one cancelled, dropped or dropped by another's action does not fire; one
/// armed by an action waits for a later pass of the main loop.
final class MainLoopTimerTests: XCTestCase {
    let clock = MainLoopClock()

    func testTimersFireOnceEachInDeadlineOrderAndNeverEarly() {
        var fired: [(name: String, at: Int64)] = []
        let start = clock.monotonicMicros
        let late = MainLoopTimer(clock: clock) { fired.append(("late", self.clock.monotonicMicros)) }
        let early = MainLoopTimer(clock: clock) { fired.append(("early", self.clock.monotonicMicros)) }
        // The witness fires after any deadline before its own: a second firing of either,
        // at 40 ms or later, would come before it.
        let witness = MainLoopTimer(clock: clock) { fired.append(("witness", self.clock.monotonicMicros)) }
        late.arm(at: start + 60_000)
        early.arm(at: start + 20_000)
        early.arm(at: start + 40_000) // a later deadline leaves the earlier one armed
        witness.arm(at: start + 100_000)
        XCTAssertEqual(early.deadline, start + 20_000)
        BusConnection.pump(seconds: 10) { fired.contains { $0.name == "witness" } }
        XCTAssertEqual(fired.map(\.name), ["early", "late", "witness"])
        XCTAssertGreaterThanOrEqual(fired[0].at, start + 20_000)
        XCTAssertGreaterThanOrEqual(fired[1].at, start + 60_000)
        XCTAssertFalse(early.isArmed)
        XCTAssertFalse(late.isArmed)
        XCTAssertEqual(late.deadline, .max)
    }

    /// Timers found due in one pass of the loop (as under load, when the loop wakes late)
    /// run earliest deadline first, not in the order they were armed. Deadlines already
    /// past put both in the first pass without waiting for either.
    func testTimersDueInOnePassRunEarliestDeadlineFirst() {
        var fired: [String] = []
        let start = clock.monotonicMicros
        let late = MainLoopTimer(clock: clock) { fired.append("late") }
        let early = MainLoopTimer(clock: clock) { fired.append("early") }
        let tied = MainLoopTimer(clock: clock) { fired.append("tied") }
        late.arm(at: start - 20_000)
        early.arm(at: start - 60_000)
        tied.arm(at: start - 20_000) // the same deadline as `late`: armed after it, runs after it
        while fired.count < 3 { g_main_context_iteration(nil, 1) }
        XCTAssertEqual(fired, ["early", "late", "tied"])
    }

    func testACancelledOrDroppedTimerDoesNotFire() {
        var fired: [String] = []
        let start = clock.monotonicMicros
        let cancelled = MainLoopTimer(clock: clock) { fired.append("cancelled") }
        var dropped: MainLoopTimer? = MainLoopTimer(clock: clock) { fired.append("dropped") }
        let witness = MainLoopTimer(clock: clock) { fired.append("witness") }
        cancelled.arm(at: start + 10_000)
        dropped?.arm(at: start + 10_000)
        witness.arm(at: start + 30_000)
        cancelled.cancel()
        dropped = nil
        BusConnection.pump(seconds: 10) { fired.contains("witness") }
        XCTAssertEqual(fired, ["witness"])
        XCTAssertFalse(cancelled.isArmed)
    }

    func testAnActionThatDropsAnotherDueTimerStopsIt() {
        var fired: [String] = []
        var second: MainLoopTimer? = MainLoopTimer(clock: clock) { fired.append("second") }
        let first = MainLoopTimer(clock: clock) {
            fired.append("first")
            second = nil
        }
        let witness = MainLoopTimer(clock: clock) { fired.append("witness") }
        let start = clock.monotonicMicros
        first.arm(at: start) // both due in the same pass; the first armed runs first
        second?.arm(at: start)
        witness.arm(at: start + 20_000)
        BusConnection.pump(seconds: 10) { fired.contains("witness") }
        XCTAssertEqual(fired, ["first", "witness"])
    }

    func testATimerArmedByItsOwnActionForNowRunsInALaterPass() {
        var runs = 0
        var timer: MainLoopTimer!
        timer = MainLoopTimer(clock: clock) {
            runs += 1
            timer.arm(at: 0) // due at once, again and again
        }
        timer.arm(at: clock.monotonicMicros)
        for expected in 1...3 {
            while runs < expected { g_main_context_iteration(nil, 1) }
            XCTAssertEqual(runs, expected, "one run a pass of the main loop")
        }
        timer.cancel()
    }

    func testAnIdleTimerWaitsForTheDefaultPriority() {
        var fired: [String] = []
        let start = clock.monotonicMicros
        let idle = MainLoopTimer(clock: clock, priority: G_PRIORITY_DEFAULT_IDLE) { fired.append("idle") }
        let normal = MainLoopTimer(clock: clock) { fired.append("default") }
        idle.arm(at: start)
        normal.arm(at: start)
        BusConnection.pump(seconds: 10) { fired.count >= 2 }
        XCTAssertEqual(fired, ["default", "idle"])
    }
}
