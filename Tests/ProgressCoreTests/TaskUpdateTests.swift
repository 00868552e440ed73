@testable import ProgressModel
import XCTest

final class TaskUpdateTests: XCTestCase {
    func testParsesEveryKey() throws {
        let update = try TaskUpdate.parse([
            ("title", .string("Backup")), ("fraction", .double(0.5)), ("completed", .uint64(5)),
            ("total", .uint64(10)), ("unit", .string("files")), ("indeterminate", .bool(false)),
            ("message", .string("copying")), ("app-id", .string("org.example.Backup")),
            ("updates-frequently", .bool(true)), ("state", .string("paused")),
        ], for: .update)
        XCTAssertEqual(update.title, "Backup")
        XCTAssertEqual(update.fraction, 0.5)
        XCTAssertEqual(update.completed, 5)
        XCTAssertEqual(update.total, 10)
        XCTAssertEqual(update.unit, "files")
        XCTAssertEqual(update.indeterminate, false)
        XCTAssertEqual(update.message, "copying")
        XCTAssertEqual(update.appId, "org.example.Backup")
        XCTAssertEqual(update.updatesFrequently, true)
        XCTAssertEqual(update.state, .paused)
    }

    func testIntegerTypesAreAcceptedAsGdbusWritesThem() throws {
        let update = try TaskUpdate.parse([("total", .int32(10)), ("fraction", .int32(1))], for: .start)
        XCTAssertEqual(update.total, 10)
        XCTAssertEqual(update.fraction, 1)
    }

    func testErrorsNameTheKeyAndTheValue() {
        assertError(try TaskUpdate.parse([("bogus", .int32(1))], for: .start), "UnknownOption", "'bogus'")
        assertError(try TaskUpdate.parse([("state", .string("paused"))], for: .start), "UnknownOption", "'state'")
        assertError(try TaskUpdate.parse([("title", .double(1))], for: .start), "InvalidValue", "got type 'd'")
        assertError(try TaskUpdate.parse([("fraction", .string("x"))], for: .start), "InvalidValue", "'fraction'")
        assertError(try TaskUpdate.parse([("fraction", .double(.nan))], for: .start), "InvalidValue", "nan")
        assertError(try TaskUpdate.parse([("fraction", .double(.infinity))], for: .start), "InvalidValue", "inf")
        assertError(try TaskUpdate.parse([("fraction", .double(1.5))], for: .start), "InvalidValue", "1.5")
        assertError(try TaskUpdate.parse([("fraction", .double(-0.1))], for: .start), "InvalidValue", "-0.1")
        assertError(try TaskUpdate.parse([("total", .int32(-3))], for: .start), "InvalidValue", "-3")
        assertError(try TaskUpdate.parse([("total", .bool(true))], for: .start), "InvalidValue", "got type 'b'")
        assertError(
            try TaskUpdate.parse([("indeterminate", .int32(1))], for: .start), "InvalidValue", "'indeterminate'")
        assertError(
            try TaskUpdate.parse([("title", .string("a")), ("title", .string("b"))], for: .start),
            "InvalidValue", "twice")
        assertError(
            try TaskUpdate.parse([("unsupported", OptionValue(.unsupported, signature: "as"))], for: .start),
            "UnknownOption", "'unsupported'")
        assertError(
            try TaskUpdate.parse([("title", OptionValue(.unsupported, signature: "as"))], for: .start),
            "InvalidValue", "got type 'as'")
    }

    func testStateOnlyAcceptsTheRequestableStates() {
        assertError(try TaskUpdate.parse([("state", .string("finished"))], for: .update), "InvalidValue", "call Finish")
        assertError(try TaskUpdate.parse([("state", .string("failed"))], for: .update), "InvalidValue", "call Fail")
        assertError(try TaskUpdate.parse([("state", .string("sleeping"))], for: .update), "InvalidValue", "'sleeping'")
    }

    func testTextLimits() {
        let limits = Limits()
        XCTAssertNoThrow(try TaskUpdate.parse(
            [("title", .string(String(repeating: "t", count: limits.maxTitleBytes)))], for: .start))
        assertError(
            try TaskUpdate.parse(
                [("title", .string(String(repeating: "t", count: limits.maxTitleBytes + 1)))], for: .start),
            "LimitExceeded", "1025 bytes")
        assertError(
            try TaskUpdate.parse([("unit", .string(String(repeating: "u", count: 65)))], for: .start),
            "LimitExceeded", "limit is 64")
        assertError(
            try TaskUpdate.parse([("message", .string(String(repeating: "m", count: 1_000_000)))], for: .start),
            "LimitExceeded", "limit is 4096")
        assertError(
            try TaskUpdate.parse([("app-id", .string(String(repeating: "a", count: 256)))], for: .start),
            "LimitExceeded", "limit is 255")
    }
}

func assertError<T>(
    _ expression: @autoclosure () throws -> T, _ name: String, _ fragment: String,
    file: StaticString = #filePath, line: UInt = #line
) {
    XCTAssertThrowsError(try expression(), file: file, line: line) { error in
        guard let error = error as? ProgressError else { return XCTFail("\(error)", file: file, line: line) }
        XCTAssertEqual(error.name, name, error.message, file: file, line: line)
        XCTAssertTrue(
            error.message.contains(fragment), "'\(error.message)' lacks '\(fragment)'", file: file, line: line)
        XCTAssertLessThan(error.message.utf8.count, 400, "messages quote long values short", file: file, line: line)
    }
}
