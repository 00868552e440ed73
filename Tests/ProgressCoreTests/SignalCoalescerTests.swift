@testable import ProgressCore
import XCTest

final class SignalCoalescerTests: XCTestCase {
    let taskName = try! TaskName("t")
    var coalescer = SignalCoalescer(maxSignalsPerSecond: 10)

    func change(_ properties: TaskProperties, immediate: Bool = false, kind: TaskChange.Kind = .updated) -> TaskChange {
        TaskChange(name: taskName, kind: kind, properties: properties, isImmediate: immediate)
    }

    func testTheFirstChangeAfterAQuietIntervalGoesOutAtOnce() {
        _ = coalescer.record(change(.all, kind: .created), now: 0)
        XCTAssertEqual(coalescer.record(change([.fraction]), now: 100_000), .signal([.fraction]))
    }

    func testChangesWithinTheIntervalAreHeldAndMerged() {
        _ = coalescer.record(change(.all, kind: .created), now: 0)
        XCTAssertEqual(coalescer.record(change([.fraction]), now: 10_000), .hold(until: 100_000))
        XCTAssertEqual(coalescer.record(change([.message]), now: 20_000), .hold(until: 100_000))
        XCTAssertTrue(coalescer.takeDue(now: 99_999).isEmpty)
        XCTAssertEqual(coalescer.nextDeadline, 100_000)
        let due = coalescer.takeDue(now: 100_000)
        XCTAssertEqual(due.map(\.properties), [[.fraction, .message]])
        XCTAssertNil(coalescer.nextDeadline)
    }

    func testAnImmediateChangeCarriesWhatWasHeld() {
        _ = coalescer.record(change(.all, kind: .created), now: 0)
        _ = coalescer.record(change([.fraction]), now: 10_000)
        XCTAssertEqual(coalescer.record(change([.state], immediate: true), now: 20_000), .signal([.fraction, .state]))
        XCTAssertFalse(coalescer.hasHeld)
    }

    func testAFlushTakesWhatIsHeldEarly() {
        _ = coalescer.record(change(.all, kind: .created), now: 0)
        _ = coalescer.record(change([.fraction]), now: 10_000)
        XCTAssertEqual(coalescer.flush(taskName, now: 11_000), [.fraction])
        XCTAssertNil(coalescer.flush(taskName, now: 12_000))
        // The flush counts as a signal: the next change waits for the interval after it.
        XCTAssertEqual(coalescer.record(change([.fraction]), now: 50_000), .hold(until: 111_000))
    }

    func testRemovalForgetsTheTask() {
        _ = coalescer.record(change(.all, kind: .created), now: 0)
        _ = coalescer.record(change([.fraction]), now: 10_000)
        XCTAssertEqual(coalescer.record(change([], kind: .removed), now: 20_000), .none)
        XCTAssertFalse(coalescer.hasHeld)
    }

    /// 10,000 changes in two seconds: no more signals than the rate allows, and the
    /// last change always goes out.
    func testAFloodIsBoundedByTheRateAndKeepsItsLastValue() {
        _ = coalescer.record(change(.all, kind: .created), now: 0)
        var signals = 0
        var now: Int64 = 0
        var lastSignalled = TaskProperties()
        for step in 0..<10_000 {
            now = Int64(step) * 200
            let properties: TaskProperties = step == 9_999 ? [.fraction, .message] : [.fraction]
            if case .signal(let sent) = coalescer.record(change(properties), now: now) {
                signals += 1
                lastSignalled = sent
            }
            for entry in coalescer.takeDue(now: now) {
                signals += 1
                lastSignalled = entry.properties
            }
        }
        let trailing = coalescer.takeDue(now: now + coalescer.intervalMicros)
        signals += trailing.count
        if let last = trailing.last { lastSignalled = last.properties }
        XCTAssertLessThanOrEqual(signals, Int(now / coalescer.intervalMicros) + 2)
        XCTAssertGreaterThanOrEqual(signals, 19)
        XCTAssertTrue(lastSignalled.contains(.message), "the last change went out")
        XCTAssertFalse(coalescer.hasHeld)
    }
}
