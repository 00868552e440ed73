@testable import ProgressModel
@testable import ProgressPolicies
import XCTest

final class SignalCoalescerTests: XCTestCase {
    let taskName = try! TaskName("t")
    var coalescer = SignalCoalescer(maxSignalsPerSecond: 10)

    func change(_ properties: TaskProperties, immediate: Bool = false, kind: TaskChange.Kind = .updated) -> TaskChange {
        TaskChange(name: taskName, kind: kind, properties: properties, isImmediate: immediate, task: task(taskName))
    }

    /// A task to carry; the coalescer reads names and properties only.
    func task(_ name: TaskName) -> ProgressTask {
        ProgressTask(name: name, caller: ":1.1", wallMicros: 0, monotonicMicros: 0, limits: Limits())
    }

    func testTheFirstChangeAfterAQuietIntervalGoesOutAtOnce() {
        _ = coalescer.record(change(.all, kind: .created), now: 0)
        XCTAssertEqual(coalescer.record(change([.fraction]), now: 100_000), .signal([.fraction]))
    }

    func testChangesWithinTheIntervalAreHeldAndMerged() {
        _ = coalescer.record(change(.all, kind: .created), now: 0)
        XCTAssertEqual(coalescer.record(change([.fraction]), now: 10_000), .hold(until: 100_000))
        XCTAssertEqual(coalescer.record(change([.message]), now: 20_000), .alsoHeld)
        XCTAssertTrue(coalescer.takeDue(now: 99_999).isEmpty)
        XCTAssertEqual(coalescer.nextDeadline, 100_000)
        let due = coalescer.takeDue(now: 100_000)
        XCTAssertEqual(due.map(\.properties), [[.fraction, .message]])
        XCTAssertNil(coalescer.nextDeadline)
    }

    /// A change while something is held joins it, even once its deadline has passed (the
    /// timer set for it is due): it goes out then, with what was held, not on its own first.
    func testAChangeJoinsWhatIsHeldAndGoesOutWithIt() {
        _ = coalescer.record(change(.all, kind: .created), now: 0)
        XCTAssertEqual(coalescer.record(change([.fraction]), now: 10_000), .hold(until: 100_000))
        XCTAssertEqual(coalescer.record(change([.message]), now: 150_000), .alsoHeld)
        XCTAssertEqual(coalescer.nextDeadline, 100_000)
        XCTAssertEqual(coalescer.takeDue(now: 150_000).map(\.properties), [[.fraction, .message]])
        XCTAssertEqual(coalescer.record(change([.fraction]), now: 160_000), .hold(until: 250_000))
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

    /// 100,000 tasks started in a burst and then idle: the coalescer remembers at most the
    /// recent ones, and what it forgot behaves as before (the next change goes out at once),
    /// while a recent task is still held.
    func testABurstOfNewTasksIsForgottenOnceItIsOld() throws {
        let names = try (0..<100_000).map { try TaskName("t\($0)") }
        for (offset, name) in names.enumerated() {
            // 10,000 Starts a second: one interval (100 ms) holds 1,000 of them.
            _ = coalescer.record(
                TaskChange(name: name, kind: .created, properties: .all, isImmediate: false, task: task(name)),
                now: Int64(offset) * 100)
        }
        let end = Int64(names.count) * 100
        XCTAssertLessThanOrEqual(coalescer.keysRemembered, 2 * max(1_000, SignalCoalescer.fewestEntriesPruned),
                                 "not one entry per idle task")
        XCTAssertEqual(
            coalescer.record(
                TaskChange(
                    name: names[0], kind: .updated, properties: [.fraction], isImmediate: false, task: task(names[0])),
                now: end),
            .signal([.fraction]), "a forgotten task signals at once")
        XCTAssertEqual(
            coalescer.record(
                TaskChange(
                    name: names.last!, kind: .updated, properties: [.fraction], isImmediate: false,
                    task: task(names.last!)),
                now: end),
            .hold(until: end - 100 + 100_000), "a recent task is still held")
    }
}
