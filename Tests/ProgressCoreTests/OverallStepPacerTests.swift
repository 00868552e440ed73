@testable import ProgressPolicies
import XCTest

/// OverallStepPacer: the overall goes to a subscriber when a step of one of its resolutions
/// or the shape changes, at most once an interval, and what waits is decided anew when due.
final class OverallStepPacerTests: XCTestCase {
    typealias Pacer = OverallStepPacer<String>
    let interval: Int64 = 100_000

    /// Sends what `pacer` decides at `now` (recording it), as the daemon does.
    func offer(_ pacer: inout Pacer, _ fraction: Double, _ shape: String = "running", at now: Int64) -> Pacer.Decision {
        let look = pacer.look(fraction: fraction, shape: shape)
        let decision = pacer.consider(look, now: now)
        if decision == .send { pacer.sent(look, now: now) }
        return decision
    }

    func testStepsAreFloorsAtEachResolution() {
        let pacer = Pacer(resolutions: [82, 100], intervalMicros: interval)
        XCTAssertEqual(pacer.look(fraction: 0.29, shape: "").steps, [23, 29])
        XCTAssertEqual(pacer.look(fraction: 0.999, shape: "").steps, [81, 99])
        XCTAssertEqual(pacer.look(fraction: 1, shape: "").steps, [82, 100])
        XCTAssertEqual(pacer.look(fraction: -1, shape: "").steps, [0, 0])
        XCTAssertEqual(pacer.look(fraction: .nan, shape: "").steps, [0, 0])
    }

    func testMovesWithinAStepAreNotSent() {
        var pacer = Pacer(resolutions: [100], intervalMicros: interval)
        XCTAssertEqual(offer(&pacer, 0.200, at: 0), .send, "the first goes at once")
        // A transfer's 0.1 % moves, a second apart: one signal per whole percent.
        var sent = 0
        for update in 1...100 where offer(&pacer, 0.2 + Double(update) / 1000, at: Int64(update) * 1_000_000) == .send {
            sent += 1
        }
        XCTAssertEqual(sent, 10)
    }

    func testAShapeChangeIsSentWithinTheSameStep() {
        var pacer = Pacer(resolutions: [100], intervalMicros: interval)
        XCTAssertEqual(offer(&pacer, 0.5, at: 0), .send)
        XCTAssertEqual(offer(&pacer, 0.5, "paused", at: 1_000_000), .send)
        XCTAssertEqual(offer(&pacer, 0.5, "paused", at: 2_000_000), .none)
    }

    func testAtMostOneAnIntervalAndTheLastIsDecidedWhenDue() {
        var pacer = Pacer(resolutions: [100], intervalMicros: interval)
        XCTAssertEqual(offer(&pacer, 0.10, at: 0), .send)
        XCTAssertEqual(offer(&pacer, 0.20, at: 10_000), .hold(until: 100_000))
        XCTAssertEqual(offer(&pacer, 0.30, at: 20_000), .none, "already held")
        XCTAssertEqual(pacer.heldUntil, 100_000)
        XCTAssertEqual(offer(&pacer, 0.40, at: 100_000), .send, "due: the value as it is then")
        XCTAssertNil(pacer.heldUntil)
    }

    func testAHeldChangeThatCameBackIsDropped() {
        var pacer = Pacer(resolutions: [100], intervalMicros: interval)
        XCTAssertEqual(offer(&pacer, 0.10, at: 0), .send)
        XCTAssertEqual(offer(&pacer, 0.20, at: 10_000), .hold(until: 100_000))
        XCTAssertEqual(offer(&pacer, 0.105, at: 20_000), .none)
        XCTAssertNil(pacer.heldUntil, "back within the step sent: nothing waits")
        XCTAssertEqual(offer(&pacer, 0.105, at: 100_000), .none)
    }

    func testAnOverdueHoldIsDecidedAnew() {
        // The subscriber could not be sent to when the hold was due: the next look decides.
        var pacer = Pacer(resolutions: [100], intervalMicros: interval)
        XCTAssertEqual(offer(&pacer, 0.10, at: 0), .send)
        XCTAssertEqual(offer(&pacer, 0.20, at: 10_000), .hold(until: 100_000))
        XCTAssertEqual(offer(&pacer, 0.20, at: 5_000_000), .send)
    }
}
