@testable import ProgressModel
@testable import ProgressPolicies
import XCTest

final class SubscriptionOptionsTests: XCTestCase {
    func parse(_ pairs: [(String, OptionValue)]) throws -> SubscriptionOptions {
        try SubscriptionOptions.parse(pairs.map { (key: $0.0, value: $0.1) })
    }

    func testDefaultsAndEveryKey() throws {
        let defaults = try parse([])
        XCTAssertEqual(defaults.intervalMicros, 10_000_000)
        XCTAssertTrue(defaults.announcements)
        XCTAssertFalse(defaults.changes)
        XCTAssertTrue(defaults.covers(try TaskName("anything")))
        let options = try parse([
            ("locale", .string("fr_FR")), ("interval-seconds", .double(0.5)), ("min-percent-step", .uint64(10)),
            ("tasks", OptionValue(.strings(["a", "b"]), signature: "as")), ("announcements", .bool(false)),
            ("changes", .bool(true)),
        ])
        XCTAssertEqual(options.locale, "fr_FR")
        XCTAssertEqual(options.intervalMicros, 500_000)
        XCTAssertEqual(options.minimumPercentStep, 10)
        XCTAssertTrue(options.covers(try TaskName("a")))
        XCTAssertFalse(options.covers(try TaskName("c")))
        XCTAssertEqual(defaults.overallSteps, [])
        let ring = try parse([
            ("announcements", .bool(false)), ("overall-steps", OptionValue(.wholeNumbers([82, 100]), signature: "au")),
        ])
        XCTAssertEqual(ring.overallSteps, [82, 100])
    }

    func testBadOverallSteps() {
        func steps(_ numbers: [UInt64]) throws -> SubscriptionOptions {
            try parse([("overall-steps", OptionValue(.wholeNumbers(numbers), signature: "au"))])
        }
        assertError(try steps([100, 0]), "InvalidValue", "overall-steps 0 is outside 1...10000")
        assertError(try steps([10_001]), "InvalidValue", "overall-steps 10001 is outside 1...10000")
        assertError(try steps([]), "InvalidValue", "overall-steps has 0 resolutions; it takes 1 to 4")
        assertError(try steps([1, 2, 3, 4, 5]), "InvalidValue", "overall-steps has 5 resolutions")
        assertError(try parse([("overall-steps", .uint64(100))]), "InvalidValue", "an array of whole numbers (au)")
    }

    func testBadOptions() {
        assertError(try parse([("interval-seconds", .double(0.01))]), "InvalidValue", "interval-seconds 0.01")
        assertError(try parse([("interval-seconds", .double(.nan))]), "InvalidValue", "interval-seconds nan")
        assertError(try parse([("min-percent-step", .uint64(0))]), "InvalidValue", "min-percent-step 0")
        assertError(try parse([("min-percent-step", .string("ten"))]), "InvalidValue", "got type 's'")
        assertError(try parse([("tasks", OptionValue(.strings([""]), signature: "as"))]), "InvalidName", "empty")
        assertError(try parse([("tasks", .string("a"))]), "InvalidValue", "an array of names (as)")
        assertError(try parse([("announcements", .bool(false))]), "InvalidValue", "would receive nothing")
        assertError(try parse([("colour", .bool(false))]), "UnknownOption", "'colour'")
    }
}
