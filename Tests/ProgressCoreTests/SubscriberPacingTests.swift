@testable import ProgressModel
@testable import ProgressPolicies
import XCTest

final class SubscriberPacingTests: XCTestCase {
    let peer = ClientID(":1.7")

    func testAtMostTheRateASecondAfterABurst() {
        var pacing = SubscriberPacing(signalsPerSecond: 100, answerMicros: 3_000_000)
        var sent = 0
        // 10 s, every millisecond
        for tick in 0..<10_000 where pacing.take(peer, now: Int64(tick) * 1_000) { sent += 1 }
        XCTAssertLessThanOrEqual(sent, 100 + 10 * 100)
        XCTAssertGreaterThanOrEqual(sent, 10 * 100)
        XCTAssertNotNil(pacing.nextChance(peer, now: 10_000_000))
    }

    func testAPeerThatDoesNotAnswerGetsNothingUntilItDoes() {
        var pacing = SubscriberPacing(signalsPerSecond: 100, answerMicros: 3_000_000)
        XCTAssertTrue(pacing.take(peer, now: 0))
        XCTAssertFalse(pacing.shouldPing(peer, now: 1_000_000), "pinged at most every answer interval")
        XCTAssertTrue(pacing.shouldPing(peer, now: 3_000_000))
        XCTAssertTrue(pacing.take(peer, now: 4_000_000), "while the ping is young, signals go")
        XCTAssertFalse(pacing.take(peer, now: 6_000_000), "unanswered for 3 s: silent")
        XCTAssertNil(pacing.nextChance(peer, now: 6_000_000))
        pacing.pingFailed(peer)
        XCTAssertFalse(pacing.take(peer, now: 7_000_000), "a failed ping does not end the silence")
        XCTAssertTrue(pacing.shouldPing(peer, now: 7_000_000), "and it is pinged again at once")
        XCTAssertTrue(pacing.answered(peer, now: 8_000_000))
        XCTAssertTrue(pacing.take(peer, now: 8_000_000))
    }
}
