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
