import Foundation
import ProgressBus
import ProgressTestSupport
import XCTest

/// One test per error name, each sent with `gdbus call` as people run it, and each checking
/// that the bad call changed nothing.
final class ErrorNameTests: DaemonTestCase {
    override var daemonArguments: [String] { ["--max-tasks-per-caller", "3", "--max-tasks", "5"] }

    func assertGdbusError(_ result: CommandResult, _ name: String, _ fragment: String, line: UInt = #line) {
        XCTAssertEqual(result.status, 1, result.output, line: line)
        XCTAssertTrue(
            result.errors.contains("GDBus.Error:org.progressd.Progress1.Error.\(name): "), result.errors, line: line)
        XCTAssertTrue(result.errors.contains(fragment), "'\(result.errors)' lacks '\(fragment)'", line: line)
    }

    func testInvalidName() throws {
        assertGdbusError(try gdbus("Start", "", "{}"), "InvalidName", "task name is empty")
        assertGdbusError(try gdbus("Start", String(repeating: "n", count: 201), "{}"), "InvalidName", "201 bytes")
        assertGdbusError(try gdbus("SetFraction", "a\u{7}b", "0.5"), "InvalidName", "U+0007")
        XCTAssertEqual(try manager("List").first?.strings, [])
    }

    func testInvalidValue() throws {
        try start("t", [("fraction", .double(0.25))])
        assertGdbusError(try gdbus("SetFraction", "t", "nan"), "InvalidValue", "fraction nan is outside 0...1")
        assertGdbusError(try gdbus("SetFraction", "t", "inf"), "InvalidValue", "fraction inf")
        assertGdbusError(try gdbus("SetFraction", "t", "1.5"), "InvalidValue", "fraction 1.5")
        assertGdbusError(
            try gdbus("Update", "t", "{'title': <42>}"), "InvalidValue",
            "option 'title' expects a string (s), got type 'i'")
        assertGdbusError(try gdbus("Update", "t", "{'total': <-4>}"), "InvalidValue", "total -4 is negative")
        assertGdbusError(
            try gdbus("Update", "t", "{'total': <uint64 4>, 'completed': <uint64 5>}"), "InvalidValue",
            "completed 5 is more than total 4")
        assertGdbusError(try gdbus("Snapshot", "xx_YY"), "InvalidValue", "locale 'xx_YY' is not a locale")
        try manager("Finish", [.string("t")])
        assertGdbusError(
            try gdbus("SetFraction", "t", "0.5"), "InvalidValue", "task 't' is finished and can not be updated")
        XCTAssertEqual(try property("t", "Fraction"), .double(1))
        XCTAssertEqual(try property("t", "Title"), .string(""))
    }

    func testNoSuchTask() throws {
        for method in ["Pulse", "Finish", "Remove"] {
            assertGdbusError(try gdbus(method, "ghost"), "NoSuchTask", "no task is named 'ghost'")
        }
        assertGdbusError(try gdbus("SetFraction", "ghost", "0.1"), "NoSuchTask", "'ghost'")
        assertGdbusError(try gdbus("Fail", "ghost", "why"), "NoSuchTask", "'ghost'")
        assertGdbusError(try gdbus("Update", "ghost", "{}"), "NoSuchTask", "'ghost'")
    }

    func testUnknownOption() throws {
        assertGdbusError(
            try gdbus("Start", "t", "{'colour': <'red'>}"), "UnknownOption", "option 'colour' is not known to Start")
        assertGdbusError(try gdbus("Start", "t", "{'state': <'paused'>}"), "UnknownOption", "option 'state'")
        XCTAssertEqual(try manager("List").first?.strings, [], "a refused Start creates nothing")
    }

    func testLimitExceeded() throws {
        assertGdbusError(
            try gdbus("Start", "t", "{'title': <'\(String(repeating: "x", count: 1025))'>}"),
            "LimitExceeded", "title is 1025 bytes; the limit is 1024")
        for index in 1...3 { try start("mine \(index)") }
        let pid = ProcessInfo.processInfo.processIdentifier
        assertBusError(
            "LimitExceeded",
            "process \(pid) has started 3 tasks; the limit per process (a sandboxed app is one) is 3") {
            try self.start("mine 4")
        }
        // Another connection of this process is the same process.
        assertBusError("LimitExceeded", "process \(pid) has started 3 tasks") {
            try self.start("mine 4", on: try self.bus.connect())
        }
        // Each gdbus is a process of its own.
        XCTAssertEqual(try gdbus("Start", "other 1", "{}").status, 0)
        XCTAssertEqual(try gdbus("Start", "other 2", "{}").status, 0)
        assertGdbusError(
            try gdbus("Start", "other 3", "{}"), "LimitExceeded", "the daemon holds 5 tasks; the limit is 5")
        XCTAssertEqual(try manager("List").first?.strings?.count, 5)
    }

    /// A sandboxed app is the identity AccessDenied is for (SandboxTests covers it); from the
    /// host it comes for taking over a caller task whose connection is still on the bus.
    func testAccessDenied() throws {
        try start("job", [("lifetime", .string("caller"))])
        assertGdbusError(
            try gdbus("Start", "job", "{'title': <'mine now'>}"), "AccessDenied",
            "task 'job' is bound to connection \(client.uniqueName), which is still on the bus; "
                + "only that connection may start it again, or a Start with take-over: true")
        XCTAssertEqual(try property("job", "Title"), .string(""))
    }

    func testMalformedCallsAreRefusedByGDBusItself() throws {
        let result = try gdbus("SetFraction", "t")
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.errors.contains("org.freedesktop.DBus.Error.InvalidArgs"), result.errors)
    }
}
