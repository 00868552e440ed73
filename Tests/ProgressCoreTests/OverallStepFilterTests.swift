@testable import ProgressPolicies
import XCTest

/// OverallStepFilter: the overall is news to a subscriber when a step of one of its
/// resolutions or the shape changes, and the first one always is.
final class OverallStepFilterTests: XCTestCase {
    typealias Filter = OverallStepFilter<String>

    func isNews(_ filter: inout Filter, _ fraction: Double, _ shape: String = "running") -> Bool {
        filter.isNews(filter.look(fraction: fraction, shape: shape))
    }

    func testStepsAreFloorsAtEachResolution() {
        let filter = Filter(resolutions: [82, 100])
        XCTAssertEqual(filter.look(fraction: 0.29, shape: "").steps, [23, 29])
        XCTAssertEqual(filter.look(fraction: 0.999, shape: "").steps, [81, 99])
        XCTAssertEqual(filter.look(fraction: 1, shape: "").steps, [82, 100])
        XCTAssertEqual(filter.look(fraction: -1, shape: "").steps, [0, 0])
        XCTAssertEqual(filter.look(fraction: .nan, shape: "").steps, [0, 0])
    }

    func testMovesWithinAStepAreNotNews() {
        var filter = Filter(resolutions: [100])
        XCTAssertTrue(isNews(&filter, 0.2), "the first is news")
        // A transfer's 0.1 % moves: news once a whole percent.
        let news = (1...100).filter { isNews(&filter, 0.2 + Double($0) / 1000) }.count
        XCTAssertEqual(news, 10)
    }

    func testEachResolutionHasItsSteps() {
        // A ring of 41 pixels drawn rounded (82) and a percent: 0.5 % to 1.6 % crosses the
        // ring's step at 1/82 (1.22 %) and the percent's at 1 %.
        var filter = Filter(resolutions: [82, 100])
        XCTAssertTrue(isNews(&filter, 0.005))
        XCTAssertFalse(isNews(&filter, 0.009))
        XCTAssertTrue(isNews(&filter, 0.010), "the percent's step")
        XCTAssertTrue(isNews(&filter, 0.0123), "the ring's step")
        XCTAssertFalse(isNews(&filter, 0.016))
    }

    func testAShapeChangeIsNewsWithinTheSameStep() {
        var filter = Filter(resolutions: [100])
        XCTAssertTrue(isNews(&filter, 0.5))
        XCTAssertTrue(isNews(&filter, 0.5, "paused"))
        XCTAssertFalse(isNews(&filter, 0.505, "paused"))
        XCTAssertEqual(filter.sent?.shape, "paused")
    }
}
