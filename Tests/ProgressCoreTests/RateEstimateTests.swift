@testable import ProgressModel
@testable import ProgressCore
import ProgressTestSupport
import XCTest

final class RateEstimateTests: XCTestCase {
    let clock = ManualClock()
    lazy var store = TaskStore(clock: clock)
    let copy = try! TaskName("copy")
    let job: ClientID = ":1.10"

    var task: ProgressTask { store.task(copy)! }

    func start(_ pairs: [(String, OptionValue)] = []) throws {
        _ = try store.start(
            copy, with: TaskUpdate.parse(pairs.map { (key: $0.0, value: $0.1) }, for: .start), caller: job)
    }

    func complete(_ units: UInt64) throws {
        _ = try store.update(copy, with: TaskUpdate.parse([("completed", .uint64(units))], for: .update))
    }

    func state(_ state: String) throws {
        _ = try store.update(copy, with: TaskUpdate.parse([("state", .string(state))], for: .update))
    }

    func testASteadyJobGetsAnEstimateAfterSeveralSamples() throws {
        try start([("total", .uint64(1_000)), ("unit", .string("bytes"))])
        for second in 1...3 {
            clock.advance(seconds: 1)
            try complete(UInt64(second) * 10)
            XCTAssertEqual(task.secondsRemaining, -1, "no estimate from \(second + 1) points")
            XCTAssertEqual(task.rate, 0)
        }
        clock.advance(seconds: 1)
        try complete(40)
        XCTAssertEqual(task.rate, 10, accuracy: 1e-9, "10 bytes a second")
        XCTAssertEqual(task.secondsRemaining, 96)
    }

    func testWithoutATotalTheRateIsFractionPerSecond() throws {
        try start()
        for second in 1...6 {
            clock.advance(seconds: 1)
            _ = try store.setFraction(copy, Double(second) / 100)
        }
        XCTAssertEqual(task.rate, 0.01, accuracy: 1e-9)
        XCTAssertEqual(task.secondsRemaining, 94)
    }

    /// Bursts of many updates followed by silence: each burst counts as one sample, and the
    /// estimate follows the average pace, not the burst speed.
    func testBurstyUpdatesGiveTheAveragePace() throws {
        try start([("total", .uint64(10_000))])
        var done: UInt64 = 0
        for _ in 1...8 {
            for _ in 1...50 {
                clock.advance(micros: 1_000)
                done += 2
                try complete(done)
            }
            clock.advance(micros: 1_950_000)
        }
        // 100 units every 2 seconds.
        XCTAssertEqual(task.rate, 50, accuracy: 5)
        XCTAssertGreaterThan(task.secondsRemaining, 170)
        XCTAssertLessThan(task.secondsRemaining, 210)
    }

    func testNoEstimateWhilePausedAndItRecoversAfter() throws {
        try start([("total", .uint64(1_000))])
        for second in 1...6 {
            clock.advance(seconds: 1)
            try complete(UInt64(second) * 10)
        }
        XCTAssertGreaterThan(task.secondsRemaining, 0)
        try state("paused")
        XCTAssertEqual(task.secondsRemaining, -1)
        XCTAssertEqual(task.rate, 0)
        clock.advance(seconds: 300)
        try state("running")
        for second in 1...5 {
            clock.advance(seconds: 1)
            try complete(60 + UInt64(second) * 20)
        }
        XCTAssertEqual(task.rate, 20, accuracy: 1e-9, "the pause does not drag the rate down")
        XCTAssertEqual(task.secondsRemaining, 42)
    }

    func testNoEstimateWhileStalledOrIndeterminate() throws {
        try start([("total", .uint64(1_000)), ("stall-seconds", .uint64(10))])
        for second in 1...6 {
            clock.advance(seconds: 1)
            try complete(UInt64(second) * 10)
        }
        clock.advance(seconds: 10)
        _ = store.housekeeping()
        XCTAssertTrue(task.isStalled)
        XCTAssertEqual(task.secondsRemaining, -1)
        clock.advance(seconds: 1)
        try complete(70)
        XCTAssertEqual(task.secondsRemaining, -1, "the estimate starts over after a stall")
        _ = try store.pulse(copy)
        XCTAssertEqual(task.secondsRemaining, -1)
        XCTAssertEqual(task.rate, 0)
    }

    func testGoingBackwardsStartsOver() throws {
        try start([("total", .uint64(1_000))])
        for second in 1...6 {
            clock.advance(seconds: 1)
            try complete(UInt64(second) * 10)
        }
        clock.advance(seconds: 1)
        try complete(5)
        XCTAssertEqual(task.secondsRemaining, -1)
    }

    func testAFinishedTaskHasNothingLeft() throws {
        try start([("total", .uint64(1_000))])
        for second in 1...6 {
            clock.advance(seconds: 1)
            try complete(UInt64(second) * 10)
        }
        _ = try store.finish(copy)
        XCTAssertEqual(task.secondsRemaining, -1)
        XCTAssertEqual(task.rate, 0)
    }

    /// The estimate follows the last minute only: after a slower minute, the faster one
    /// before it no longer counts, and updates closer than the spacing move the newest
    /// sample instead of adding one.
    func testOnlyTheLastMinuteCounts() {
        var estimator = RateEstimator()
        var value = 0.0
        var now: Int64 = 1_000_000
        for _ in 0..<240 {
            value += 5 // 10 a second for two minutes, each update twice, 0.1 s apart
            estimator.record(value - 1, now: now)
            estimator.record(value, now: now + 100_000)
            now += 500_000
        }
        XCTAssertEqual(estimator.rate ?? 0, 10, accuracy: 1e-6)
        for _ in 0..<122 {
            value += 0.5 // 1 a second for a minute and a bit
            estimator.record(value, now: now)
            now += 500_000
        }
        XCTAssertEqual(estimator.rate ?? 0, 1, accuracy: 1e-6, "the faster minute before no longer counts")
        estimator.record(value - 1, now: now)
        XCTAssertNil(estimator.rate, "going backwards starts over")
    }
}
