import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// The promises of the change signals, at the default rate of 10 a second.
final class ChangeSignalTests: DaemonTestCase {
    func testStateChangesGoOutAtOnceAndInOrder() throws {
        try start("job", [("fraction", .double(0.1))])
        let recorder = try recordProperties(of: "job")
        for state in ["paused", "running", "paused", "cancelled"] {
            try manager("Update", [.string("job"), .vardict([("state", .string(state))])])
        }
        try start("job")  // starts afresh: running again
        try manager("Pulse", [.string("job")])
        try manager("SetFraction", [.string("job"), .double(0.5)])
        try manager("Finish", [.string("job")])
        XCTAssertTrue(BusConnection.pump(seconds: 10) { recorder.values("State").last == .string("finished") })
        XCTAssertEqual(
            recorder.values("State").compactMap(\.string),
            ["paused", "running", "paused", "cancelled", "running", "finished"])
        XCTAssertEqual(recorder.values("Indeterminate"), [.bool(true), .bool(false)])
        XCTAssertEqual(recorder.changes.last?["Fraction"], .double(1))
        // Every state change was its own signal, though they came faster than the rate.
        XCTAssertGreaterThanOrEqual(recorder.changes.count, 8)
    }

    /// 10,000 SetFraction calls on one task: no more signals than the rate allows,
    /// the last signal carries the last value, and a final Get agrees.
    func testAFloodIsCoalescedAndItsLastValueArrives() throws {
        try start("flood")
        let recorder = try recordProperties(of: "flood")
        let count = 10_000
        let began = Date().timeIntervalSinceReferenceDate
        for step in 1...count {
            client.send(
                BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "SetFraction",
                [.string("flood"), .double(Double(step) / Double(count))])
        }
        try manager("List")  // every SetFraction before it has been handled
        XCTAssertTrue(
            BusConnection.pump(seconds: 10) { recorder.values("Fraction").last == .double(1) },
            "the trailing signal with the last value arrives")
        try settle()  // anything sent after it would show here
        let fractions = recorder.values("Fraction").compactMap(\.double)
        XCTAssertEqual(fractions.last, 1)
        XCTAssertEqual(fractions, fractions.sorted(), "signals never go back to an older value")
        let span = (recorder.arrivals.last ?? began) - began
        // The daemon sends at most one signal per 100 ms; 2 more allow for delivery jitter.
        XCTAssertLessThanOrEqual(recorder.changes.count, Int(span * 10) + 2, "span \(span)s")
        XCTAssertLessThan(recorder.changes.count, count / 100)
        XCTAssertEqual(try property("flood", "Fraction"), .double(1))
        XCTAssertEqual(try property("flood", "Serial"), .uint64(UInt64(count)))
        XCTAssertEqual(try property("flood", "UpdatesFrequently"), .bool(true))
        XCTAssertTrue(recorder.values("UpdatesFrequently").contains(.bool(true)))
    }

    func testAFloodOnManyTasksIsCoalescedPerTask() throws {
        let names = (1...20).map { "t\($0)" }
        var recorders: [String: PropertiesRecorder] = [:]
        for name in names {
            try start(name)
            recorders[name] = try recordProperties(of: name)
        }
        let began = Date().timeIntervalSinceReferenceDate
        for step in 1...100 {
            for name in names {
                client.send(
                    BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "SetFraction",
                    [.string(name), .double(Double(step) / 100)])
            }
        }
        try manager("List")
        XCTAssertTrue(BusConnection.pump(seconds: 10) {
            recorders.values.allSatisfy { $0.values("Fraction").last == .double(1) }
        })
        let span = Date().timeIntervalSinceReferenceDate - began
        for (name, recorder) in recorders {
            XCTAssertLessThanOrEqual(recorder.changes.count, Int(span * 10) + 2, name)
        }
    }
}

/// The promises that need a wide coalescing window to be seen: at 1 signal a second,
/// a held change is held long enough that only a flush can explain its early arrival.
final class HeldSignalTests: DaemonTestCase {
    override var daemonArguments: [String] { ["--max-signals-per-second", "1"] }

    func testTheLastChangeGoesOutOnTheTrailingEdge() throws {
        try start("slow")
        let recorder = try recordProperties(of: "slow")
        try manager("SetFraction", [.string("slow"), .double(0.2)])  // within a second of InterfacesAdded: held
        let sent = Date().timeIntervalSinceReferenceDate
        try settle()  // a signal sent at once would be in before this reply
        XCTAssertTrue(recorder.changes.isEmpty, "held, not sent at once")
        XCTAssertTrue(BusConnection.pump(seconds: 5) { recorder.values("Fraction") == [.double(0.2)] })
        XCTAssertGreaterThan(Date().timeIntervalSinceReferenceDate - sent, 0.3, "it waited for the interval")
    }

    func testGetNeverOvertakesAHeldSignal() throws {
        try start("t")
        let recorder = try recordProperties(of: "t")
        try manager("SetFraction", [.string("t"), .double(0.4)])
        XCTAssertEqual(try property("t", "Fraction"), .double(0.4))
        BusConnection.drain()  // only what arrived before the reply: no waiting
        XCTAssertEqual(recorder.values("Fraction"), [.double(0.4)])
    }

    /// Issue 39: Aggregate applied the held value but left the Overall signal it changed
    /// held, so a listener of Overall heard the reply first (30 times of 30).
    func testAggregateNeverOvertakesAHeldOverallSignal() throws {
        var overall: [BusValue] = []
        listener.subscribe(
            interface: BusNames.propertiesInterface, member: "PropertiesChanged", path: BusNames.managerPath) {
            if let value = $0.arguments[1]["Overall"] { overall.append(value) }
        }
        try listener.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId")
        try start("t", [("updates-frequently", .bool(true)), ("app-id", .string("org.example.Files"))])
        for fraction in [0.3, 0.5, 0.7] {
            try manager("SetFraction", [.string("t"), .double(fraction)])
            XCTAssertEqual(
                try manager("Aggregate", [.string("org.example.Files")]).first?["fraction"], .double(fraction))
            BusConnection.drain()  // only what arrived before the reply: no waiting
            XCTAssertEqual(overall.last?["fraction"], .double(fraction), "the signal came before the reply")
        }
    }

    func testGetAllSnapshotAndGetManagedObjectsFlushToo() throws {
        try start("t")
        let recorder = try recordProperties(of: "t")
        try manager("SetFraction", [.string("t"), .double(0.1)])
        _ = try properties("t")
        BusConnection.drain()
        XCTAssertEqual(recorder.values("Fraction"), [.double(0.1)])
        try manager("SetFraction", [.string("t"), .double(0.2)])
        try manager("Snapshot", [.string("")])
        BusConnection.drain()
        XCTAssertEqual(recorder.values("Fraction"), [.double(0.1), .double(0.2)])
        try manager("SetFraction", [.string("t"), .double(0.3)])
        try client.call(BusNames.busName, BusNames.managerPath, BusNames.objectManagerInterface, "GetManagedObjects")
        BusConnection.drain()
        XCTAssertEqual(recorder.values("Fraction"), [.double(0.1), .double(0.2), .double(0.3)])
    }

    func testHeldSignalsGoOutBeforeTheTaskIsRemoved() throws {
        try start("t")
        var events: [String] = []
        listener.subscribe(path: BusNames.taskPath(try TaskNameText.name("t"))) { signal in
            events.append("\(signal.member) \(signal.arguments[1]["Fraction"]?.double ?? -1)")
        }
        listener.subscribe(interface: BusNames.objectManagerInterface, member: "InterfacesRemoved") { _ in
            events.append("InterfacesRemoved")
        }
        try listener.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId")
        try manager("SetFraction", [.string("t"), .double(0.7)])
        try manager("Remove", [.string("t")])
        XCTAssertTrue(BusConnection.pump(seconds: 5) { events.count == 2 })
        XCTAssertEqual(events, ["PropertiesChanged 0.7", "InterfacesRemoved"])
    }

    /// Issue 39's repro as a listener does it: it hears Overall and asks Aggregate on its own
    /// connection right after each SetFraction of a task that updates frequently; no reply
    /// is newer than the last Overall it heard (30 of 30 were).
    func testAListenerOfOverallNeverGetsAnAggregateNewerThanTheLastOverallItHeard() throws {
        var overall: [Double] = []
        listener.subscribe(
            interface: BusNames.propertiesInterface, member: "PropertiesChanged", path: BusNames.managerPath) {
            if let fraction = $0.arguments[1]["Overall"]?["fraction"]?.double { overall.append(fraction) }
        }
        try listener.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId")
        try start("t", [("updates-frequently", .bool(true)), ("app-id", .string("org.example.Files"))])
        var newer: [String] = []
        for step in 1...30 {
            let fraction = Double(step) / 40
            try manager("SetFraction", [.string("t"), .double(fraction)])
            let reply = try listener.call(
                BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Aggregate",
                [.string("org.example.Files")])
            let answered = try XCTUnwrap(reply.first?["fraction"]?.double)
            BusConnection.drain()  // only what arrived before the reply: no waiting
            XCTAssertEqual(answered, fraction, "the reply shows the acknowledged value")
            if answered != overall.last { newer.append("\(answered) after Overall \(overall.last ?? -1)") }
        }
        XCTAssertEqual(newer, [], "replies newer than the last Overall heard")
    }

    /// Issue 39: an output judges each change by the task it carries, not by the store's
    /// present state. One UpdateMany pauses and resumes a task: two changes of State in
    /// one batch, signalled at once, each with the state it left (read from the store,
    /// both said "running").
    func testTwoStatesInOneBatchAreSignalledAsEachLeftTheTask() throws {
        try start("t")
        let recorder = try recordProperties(of: "t")
        func entry(_ changes: [(String, BusValue)]) -> BusValue { .tuple([.string("t"), .vardict(changes)]) }
        let batch = [entry([("state", .string("paused"))]), entry([("state", .string("running"))])]
        try manager("UpdateMany", [.array(elementType: "(sa{sv})", batch)])
        XCTAssertTrue(BusConnection.pump(seconds: 5) { recorder.values("State").count == 2 }, "\(recorder.changes)")
        XCTAssertEqual(recorder.values("State"), [.string("paused"), .string("running")])
    }
}
