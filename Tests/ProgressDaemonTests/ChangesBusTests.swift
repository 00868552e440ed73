import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// Changes(since) over a private bus: the polling loop a screen reader or panel runs.
final class ChangesBusTests: DaemonTestCase {
    struct Poll {
        let serial: UInt64
        let reset: Bool
        let tasks: [String: [String: BusValue]]
        let removed: [String]
    }

    func changes(since: UInt64, _ options: [(String, BusValue)] = []) throws -> Poll {
        let reply = try manager("Changes", [.uint64(since), .vardict(options)])
        let tasks = (reply[2].dictionary ?? [:]).mapValues { $0.dictionary ?? [:] }
        return Poll(serial: try XCTUnwrap(reply[0].uint64), reset: try XCTUnwrap(reply[1].bool), tasks: tasks,
                    removed: reply[3].strings ?? [])
    }

    func serial() throws -> UInt64 {
        try XCTUnwrap(client.call(BusNames.busName, BusNames.managerPath, "org.freedesktop.DBus.Properties", "Get",
                                  [.string(BusNames.managerInterface), .string("Serial")]).first?.uint64)
    }

    func testThePollingLoop() throws {
        try start("backup", [("title", .string("Backup"))])
        try start("idle")
        let first = try changes(
            since: 0, [("properties", .array(elementType: "s", [.string("Name"), .string("Fraction")]))])
        XCTAssertTrue(first.reset)
        XCTAssertEqual(Set(first.tasks.keys), ["backup", "idle"])
        XCTAssertEqual(Set(first.tasks["backup"]!.keys), ["Name", "Fraction"], "the selective snapshot")
        XCTAssertEqual(first.serial, try serial())

        try manager("SetFraction", [.string("backup"), .double(0.25)])
        let second = try changes(since: first.serial)
        XCTAssertFalse(second.reset)
        XCTAssertEqual(Array(second.tasks.keys), ["backup"], "the idle task did not change")
        XCTAssertEqual(second.tasks["backup"]?["Fraction"], .double(0.25))
        XCTAssertNil(second.tasks["backup"]?["Title"], "only what changed")
        XCTAssertGreaterThan(second.serial, first.serial)

        try manager("Remove", [.string("idle")])
        let third = try changes(since: second.serial)
        XCTAssertEqual(third.removed, ["idle"])
        XCTAssertTrue(third.tasks.isEmpty)
        XCTAssertEqual(try changes(since: third.serial).removed, [], "once per poll window")
    }

    /// A task that updates frequently has its SetFraction values held by the daemon; a poll
    /// applies them first, so it shows the last value taken and every call in Serial.
    func testAPollShowsTheLastValueOfATaskThatUpdatesFrequently() throws {
        try start("copy", [("updates-frequently", .bool(true))])
        let first = try changes(since: 0)
        for step in 1...50 {
            try manager("SetFraction", [.string("copy"), .double(Double(step) / 100)])
        }
        let poll = try changes(
            since: first.serial, [("properties", .array(elementType: "s", [.string("Fraction"), .string("Serial")]))])
        XCTAssertEqual(poll.tasks["copy"]?["Fraction"], .double(0.5))
        XCTAssertEqual(poll.tasks["copy"]?["Serial"], .uint64(50), "every SetFraction counts")
        XCTAssertEqual(poll.serial, try serial())
        try manager("SetFraction", [.string("copy"), .double(0.75)])
        XCTAssertEqual(try changes(since: poll.serial).tasks["copy"]?["Fraction"], .double(0.75))
    }

    func testBadPollsGetNamedErrors() throws {
        try start("backup")
        let now = try serial()
        assertBusError("InvalidValue", "after the daemon's last change") {
            try self.manager("Changes", [.uint64(now + 5), .vardict([])])
        }
        assertBusError("UnknownOption", "'Colour'") {
            try self.manager(
                "Changes", [.uint64(0), .vardict([("properties", .array(elementType: "s", [.string("Colour")]))])])
        }
        assertBusError("UnknownOption", "not known to Changes") {
            try self.manager("Changes", [.uint64(0), .vardict([("colour", .string("red"))])])
        }
        assertBusError("InvalidValue", "locale") {
            try self.manager("Changes", [.uint64(0), .vardict([("locale", .string("!!"))])])
        }
    }

    /// docs/api.md's polling loop, run as written, prints what the page says.
    func testTheManualsPollingLoopRunsAsWritten() throws {
        let pages = try ManualPages.regions("polling")
        XCTAssertEqual(pages.map(\.page), ["docs/api.md"])
        let block = try XCTUnwrap(pages.first?.regions.first)
        let script = try XCTUnwrap(
            block.components(separatedBy: "```sh\n").dropFirst().first?.components(separatedBy: "```").first)
        let expected = try XCTUnwrap(
            block.components(separatedBy: "```text\n").dropFirst().first?.components(separatedBy: "```").first)
        var environment = bus.environment
        environment["PATH"] = BuildProducts.url(of: "progressctl").deletingLastPathComponent().path + ":"
            + (environment["PATH"] ?? "/usr/bin:/bin")
        let result = try CommandResult.run("/bin/bash", ["-euo", "pipefail", "-c", script], environment: environment)
        XCTAssertEqual(result.status, 0, result.errors)
        XCTAssertEqual(result.output, expected)
    }

    func testASerialFromAnEarlierRunIsAReset() throws {
        try start("backup", [("lifetime", .string("persistent"))])
        let before = try serial()
        XCTAssertEqual(daemon.stop(), 0)
        try startDaemon()
        XCTAssertGreaterThan(try serial(), before, "serials keep growing across a restart")
        let poll = try changes(since: before)
        XCTAssertTrue(poll.reset)
        XCTAssertEqual(Array(poll.tasks.keys), ["backup"])
    }
}
