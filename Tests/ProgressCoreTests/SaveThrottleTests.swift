@testable import ProgressModel
@testable import ProgressPolicies
import XCTest

final class SaveThrottleTests: XCTestCase {
    let a = try! TaskName("a")
    let b = try! TaskName("b")

    func testTheFirstChangeIsSavedAtOnceAndLaterOnesAtMostOnceASecond() {
        var throttle = SaveThrottle()
        XCTAssertEqual(throttle.markDirty(a, now: 5_000_000), 5_000_000)
        XCTAssertNil(throttle.markDirty(b, now: 5_000_000), "one save is already pending")
        XCTAssertEqual(throttle.takeDue(now: 5_000_000), [a, b])
        XCTAssertEqual(throttle.markDirty(a, now: 5_200_000), 6_000_000, "a second after the last save")
        XCTAssertNil(throttle.takeDue(now: 5_999_999))
        XCTAssertEqual(throttle.dueTime, 6_000_000)
        XCTAssertEqual(throttle.takeDue(now: 6_000_000), [a])
        XCTAssertNil(throttle.dueTime)
    }

    func testAQuietTaskIsSavedWithoutWaiting() {
        var throttle = SaveThrottle()
        _ = throttle.markDirty(a, now: 0)
        _ = throttle.takeDue(now: 0)
        XCTAssertEqual(throttle.markDirty(a, now: 30_000_000), 30_000_000)
    }

    func testTasksWrittenWithATransitionAreNotWrittenAgain() {
        var throttle = SaveThrottle()
        _ = throttle.markDirty(a, now: 0)
        _ = throttle.markDirty(b, now: 0)
        throttle.forget(a)
        XCTAssertEqual(throttle.takeDue(now: 0), [b])
        _ = throttle.markDirty(a, now: 100)
        XCTAssertEqual(throttle.takeAll(now: 200), [a], "a clean stop writes what is owed")
    }
}
