@testable import ProgressModel
@testable import ProgressCore
@testable import ProgressPolicies
import ProgressTestSupport
import XCTest

final class AnnouncementPolicyTests: XCTestCase {
    let clock = ManualClock()
    lazy var store = TaskStore(clock: clock)
    let copy = try! TaskName("copy")
    let job: ClientID = ":1.10"
    var policy = AnnouncementPolicy()

    /// Applies a store call and returns what the policy says about it.
    func heard(_ changes: [TaskChange]) -> [AnnouncementPolicy.Event] {
        changes.filter { $0.name == copy }.compactMap {
            policy.consider($0, now: clock.monotonicMicros)?.event
        }
    }

    func start(_ pairs: [(String, OptionValue)] = []) throws -> [TaskChange] {
        try store.start(copy, with: TaskUpdate.parse(pairs.map { (key: $0.0, value: $0.1) }, for: .start), caller: job)
    }

    func fraction(_ value: Double, after seconds: Double) throws -> [AnnouncementPolicy.Event] {
        clock.advance(seconds: seconds)
        return heard(try store.setFraction(copy, value))
    }

    func testTheStartAndEveryOutcomeAreSaid() throws {
        XCTAssertEqual(heard(try start()), [.started])
        XCTAssertEqual(heard(try store.finish(copy)), [.finished])
        XCTAssertEqual(heard(try start()), [.started], "started again")
        XCTAssertEqual(heard(try store.fail(copy, message: "disk full")), [.failed])
        _ = try start()
        XCTAssertEqual(
            heard(try store.update(copy, with: TaskUpdate.parse([("state", .string("cancelled"))], for: .update))),
            [.cancelled])
    }

    func testProgressAtMostEveryIntervalAndOnlyWhenTheWholePercentChanged() throws {
        _ = heard(try start())
        XCTAssertEqual(try fraction(0.011, after: 1), [], "within 10 seconds of the start")
        XCTAssertEqual(try fraction(0.05, after: 9), [.progress])
        XCTAssertEqual(try fraction(0.2, after: 5), [])
        XCTAssertEqual(try fraction(0.205, after: 5), [.progress], "10 seconds since the last, and 5 became 20")
        XCTAssertEqual(try fraction(0.209, after: 20), [], "the whole percent did not change")
    }

    func testASubscriberPaceAndStep() throws {
        policy = AnnouncementPolicy(intervalMicros: 1_000_000, minimumPercentStep: 10)
        _ = heard(try start())
        XCTAssertEqual(try fraction(0.05, after: 2), [], "5 points is less than the step of 10")
        XCTAssertEqual(try fraction(0.12, after: 1), [.progress])
        XCTAssertEqual(try fraction(0.2, after: 2), [], "8 points since the last one")
        XCTAssertEqual(try fraction(0.22, after: 0.5), [.progress], "10 points, 2.5 seconds after the last")
        XCTAssertEqual(try fraction(0.33, after: 0.5), [], "11 points, but half a second after the last")
        XCTAssertEqual(try fraction(0.34, after: 0.6), [.progress])
    }

    /// What a listener skips on `mayAnnounce` it would not have said, and (every update here
    /// moves the whole percent) what it does not skip is said: two tasks updated in turn keep
    /// their times apart, and a name started again starts afresh.
    func testMayAnnounceSkipsOnlyWhatWouldNotBeSaid() throws {
        let other = try TaskName("other")
        func judged(_ changes: [TaskChange]) -> [String] {
            changes.compactMap { change in
                let now = clock.monotonicMicros
                let may = policy.mayAnnounce(change, now: now)
                let said = policy.consider(change, now: now)
                if change.kind == .updated {
                    XCTAssertEqual(
                        may, said != nil,
                        "\(change.name.text) at \(now): may announce \(may), said \(said?.event.rawValue ?? "nothing")")
                }
                return may ? said.map { "\($0.name.text) \($0.event.rawValue)" } : nil
            }
        }
        func set(_ name: TaskName, _ value: Double, at seconds: Double) throws -> [String] {
            clock.advance(seconds: seconds - Double(clock.monotonicMicros - start) / 1_000_000)
            return judged(try store.setFraction(name, value))
        }
        let start = clock.monotonicMicros
        XCTAssertEqual(judged(try self.start()), ["copy started"])
        clock.advance(seconds: 5)
        XCTAssertEqual(judged(try store.start(other, with: TaskUpdate(), caller: job)), ["other started"])
        XCTAssertEqual(try set(copy, 0.5, at: 11), ["copy progress"])
        XCTAssertEqual(try set(other, 0.5, at: 12), [], "7 seconds after other started")
        XCTAssertEqual(try set(other, 0.6, at: 15.5), ["other progress"])
        XCTAssertEqual(try set(copy, 0.7, at: 16), [], "5 seconds after copy's last")
        XCTAssertEqual(try set(copy, 0.8, at: 21.5), ["copy progress"])
        _ = judged(try store.remove(copy))
        XCTAssertEqual(try set(other, 0.7, at: 22), [])
        XCTAssertEqual(judged(try self.start()), ["copy started"])
        XCTAssertEqual(try set(copy, 0.9, at: 23), [], "a second after copy started again")
        XCTAssertEqual(try set(copy, 0.95, at: 32.5), ["copy progress"])
    }

    func testStallsArePoliteAndFailuresAssertive() throws {
        _ = heard(try start([("stall-seconds", .uint64(5))]))
        clock.advance(seconds: 5)
        let stall = store.housekeeping().compactMap { policy.consider($0, now: clock.monotonicMicros) }
        XCTAssertEqual(stall.map(\.event), [.stalled])
        XCTAssertEqual(stall.first?.politeness, .polite)
        let failure = try store.fail(copy, message: "x").compactMap {
            policy.consider($0, now: clock.monotonicMicros)
        }
        XCTAssertEqual(failure.first?.politeness, .assertive)
    }

    func testPausesAreSaidAndIndeterminateProgressIsNot() throws {
        _ = heard(try start([("pausable", .bool(true))]))
        clock.advance(seconds: 20)
        XCTAssertEqual(heard(try store.pulse(copy)), [])
        XCTAssertEqual(
            heard(try store.update(copy, with: TaskUpdate.parse([("state", .string("paused"))], for: .update))),
            [.paused])
    }

    /// Issue 39: each change is judged by the task it carries, not by the store's present
    /// state: a pause and a fail of one task in one group are a pause, then a fail (judged
    /// by the task as the store has it after both, they were two failures).
    func testAPauseAndAFailInOneGroupAreAPauseThenAFail() throws {
        XCTAssertEqual(heard(try start()), [.started])
        let paused = try store.update(copy, with: TaskUpdate.parse([("state", .string("paused"))], for: .update))
        let failed = try store.fail(copy, message: "disk full")
        XCTAssertEqual(heard(paused + failed), [.paused, .failed])
        XCTAssertEqual(store.task(copy)?.state, .failed, "the store is past the pause")
    }
}
