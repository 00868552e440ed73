import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// Lifetimes, requests and aggregates as clients see them on the bus.
final class LifecycleBusTests: DaemonTestCase {
    func testRequestsReachTheJobAsSignals() throws {
        try start("copy", [("cancellable", .bool(true)), ("pausable", .bool(true))])
        var requests: [String] = []
        let path = BusNames.taskPath(try TaskNameText.name("copy"))
        listener.subscribe(interface: BusNames.taskInterface, path: path) { requests.append($0.member) }
        try listener.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId")
        let panel = try bus.connect()
        try manager("RequestPause", [.string("copy")], on: panel)
        try manager("Update", [.string("copy"), .vardict([("state", .string("paused"))])])
        try manager("RequestResume", [.string("copy")], on: panel)
        try manager("RequestCancel", [.string("copy")], on: panel)
        XCTAssertTrue(BusConnection.pump(seconds: 10) { requests.count == 3 })
        XCTAssertEqual(requests, ["PauseRequested", "ResumeRequested", "CancelRequested"])
        XCTAssertEqual(try property("copy", "CancelRequested"), .bool(true))
        try manager("Update", [.string("copy"), .vardict([("state", .string("cancelled"))])])
        XCTAssertEqual(try property("copy", "State"), .string("cancelled"))
    }

    func testRequestsATaskDoesNotTakeAreRefused() throws {
        try start("plain")
        assertBusError("NotAllowed", "task 'plain' is not cancellable") {
            try self.manager("RequestCancel", [.string("plain")])
        }
        assertBusError("NotAllowed", "task 'plain' is not pausable") {
            try self.manager("RequestPause", [.string("plain")])
        }
        assertBusError("NotAllowed", "task 'plain' is not pausable") {
            try self.manager("RequestResume", [.string("plain")])
        }
        assertBusError("NoSuchTask", "'ghost'") { try self.manager("RequestCancel", [.string("ghost")]) }
    }

    func testStallLeaseAndLingerRunOnTheDaemonsTimers() throws {
        try start("stalls", [("stall-seconds", .uint32(1))])
        try start("expires", [("lease-seconds", .uint32(1)), ("linger-seconds", .uint32(1))])
        let stalls = try recordProperties(of: "stalls")
        var removed: [String] = []
        listener.subscribe(interface: BusNames.objectManagerInterface, member: "InterfacesRemoved") {
            removed.append($0.arguments[0].string ?? "")
        }
        XCTAssertTrue(BusConnection.pump(seconds: 10) { stalls.values("Stalled") == [.bool(true)] })
        XCTAssertEqual(try property("stalls", "State"), .string("running"))
        try manager("SetFraction", [.string("stalls"), .double(0.5)])
        XCTAssertTrue(BusConnection.pump(seconds: 10) { stalls.values("Stalled").last == .bool(false) })
        XCTAssertTrue(BusConnection.pump(seconds: 10) { removed.contains(BusNames.tasksPath + "/expires") })
        XCTAssertEqual(try manager("List").first?.strings, ["stalls"])
    }

    func testATaskTreeOnTheBus() throws {
        try start("all", [("title", .string("Backup"))])
        try start("docs", [("parent", .string("all")), ("fraction", .double(0.5))])
        try start("photos", [("parent", .string("all")), ("weight", .double(3))])
        XCTAssertEqual(try property("all", "Fraction"), .double(0.125))
        XCTAssertEqual(try property("docs", "Parent"), .string("all"))
        assertBusError("InvalidValue", "has children") { try self.manager("SetFraction", [.string("all"), .double(1)]) }
        try manager("Fail", [.string("photos"), .string("camera gone")])
        XCTAssertEqual(try property("all", "State"), .string("failed"))
        XCTAssertEqual(try property("all", "Message"), .string("child 'photos' failed: camera gone"))
    }

    func testOverallAndAggregate() throws {
        var overall: [BusValue] = []
        listener.subscribe(
            interface: BusNames.propertiesInterface, member: "PropertiesChanged", path: BusNames.managerPath) {
            if let value = $0.arguments[1]["Overall"] { overall.append(value) }
        }
        try listener.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId")
        try start("a", [("fraction", .double(0.2)), ("app-id", .string("org.example.Files"))])
        try start("b", [("fraction", .double(0.6))])
        let summary = try client.call(
            BusNames.busName, BusNames.managerPath, BusNames.propertiesInterface, "Get",
            [.string(BusNames.managerInterface), .string("Overall")]
        ).first!.unboxed
        XCTAssertEqual(summary["fraction"]?.double ?? -1, 0.4, accuracy: 1e-9)
        XCTAssertEqual(summary["state"], .string("running"))
        XCTAssertEqual(summary["active"], .uint64(2))
        XCTAssertEqual(summary["indeterminate"], .bool(false))
        XCTAssertEqual(summary["stalled"], .bool(false))
        BusConnection.drain()
        XCTAssertEqual(overall.last?["fraction"]?.double ?? -1, 0.4, accuracy: 1e-9, "the signal came before the reply")
        let files = try manager("Aggregate", [.string("org.example.Files")]).first!
        XCTAssertEqual(files["fraction"], .double(0.2))
        XCTAssertEqual(files["active"], .uint64(1))
        XCTAssertEqual(try manager("Aggregate", [.string("org.example.None")]).first?["state"], .string("idle"))
    }
}

/// What survives a SIGKILL: every transition replied to, and values no more than a second old.
final class RestartTests: DaemonTestCase {
    func testStateSurvivesSigkill() throws {
        try start("done", [("title", .string("Copy"))])
        _ = try manager("Finish", [.string("done")])
        try start("held", [("pausable", .bool(true))])
        _ = try manager("Update", [.string("held"), .vardict([("state", .string("paused"))])])
        let job = try bus.connect()
        _ = try job.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Start",
                         [.string("bound"), .vardict([("lifetime", .string("caller"))])])
        try start("flood", [("total", .uint64(10_000)), ("unit", .string("bytes"))])
        for step in 1...5_000 {
            client.send(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Update",
                        [.string("flood"), .vardict([("completed", .uint64(UInt64(step)))])])
        }
        _ = try manager("List", [])
        // The once-a-second save (SaveThrottle, timed on a ManualClock in SaveThrottleTests)
        // has written the 5,000th step.
        let saved = BusConnection.pump(seconds: 10) {
            let files = (try? FileManager.default.contentsOfDirectory(
                at: self.bus.stateDirectory, includingPropertiesForKeys: nil)) ?? []
            return files.contains { file in
                (try? String(contentsOf: file, encoding: .utf8))?.contains(#""completed":5000"#) == true
            }
        }
        XCTAssertTrue(saved, "the 5,000th step was saved")
        for step in 5_001...6_000 {
            client.send(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Update",
                        [.string("flood"), .vardict([("completed", .uint64(UInt64(step)))])])
        }
        try start("last", [])
        _ = try manager("Fail", [.string("last"), .string("just before the crash")])
        daemon.kill()  // straight after the reply: the transition must already be on disk

        try startDaemon()
        XCTAssertEqual(try manager("List", []).first?.strings, ["bound", "done", "flood", "held", "last"])
        XCTAssertEqual(try property("last", "State"), .string("failed"))
        XCTAssertEqual(try property("last", "Message"), .string("just before the crash"))
        XCTAssertEqual(try property("done", "State"), .string("finished"))
        XCTAssertEqual(try property("done", "Title"), .string("Copy"))
        XCTAssertEqual(try property("held", "State"), .string("paused"))
        XCTAssertEqual(
            try property("bound", "Stalled"), .bool(false), "bound again to its job's connection, still there")
        let completed = try XCTUnwrap(property("flood", "Completed").uint64)
        XCTAssertGreaterThanOrEqual(completed, 5_000, "no more than a second old")
        XCTAssertLessThanOrEqual(completed, 6_000)
        _ = try job.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Start",
                         [.string("bound"), .vardict([])])
        XCTAssertEqual(try property("bound", "Stalled"), .bool(false), "its job came back")
    }

    func testACorruptStateFileIsMovedAsideAndTheDaemonStartsEmpty() throws {
        daemon.stop()
        try FileManager.default.removeItem(at: bus.stateDirectory)
        try FileManager.default.createDirectory(at: bus.stateDirectory, withIntermediateDirectories: true)
        try Data("\u{0}\u{1}garbage".utf8).write(to: bus.stateDirectory.appendingPathComponent("tasks-0.json"))
        try startDaemon()
        let names = try client.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "List")
        XCTAssertEqual(names.first?.strings, [])
        let errors = daemon.stopAndReadErrors()
        XCTAssertTrue(errors.contains("is unreadable"), errors)
        let files = try FileManager.default.contentsOfDirectory(atPath: bus.stateDirectory.path)
        XCTAssertTrue(files.contains { $0.hasSuffix(".corrupt") }, "\(files)")
    }
}
