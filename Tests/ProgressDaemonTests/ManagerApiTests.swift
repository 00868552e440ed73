import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

final class ManagerApiTests: DaemonTestCase {
    func testStartReturnsTheEscapedPathAndAgainTheSamePath() throws {
        XCTAssertEqual(try start("my copy"), "/org/progressd/Progress1/tasks/my_20copy")
        XCTAssertEqual(try start("my copy"), "/org/progressd/Progress1/tasks/my_20copy")
        XCTAssertEqual(try manager("List").first?.strings, ["my copy"])
    }

    func testPropertiesAfterStartAndUpdate() throws {
        try start("backup", [("title", .string("Backup")), ("total", .int32(10)), ("unit", .string("files")),
                             ("app-id", .string("org.example.Backup"))])
        try manager(
            "Update", [.string("backup"), .vardict([("completed", .uint64(3)), ("message", .string("Documents"))])])
        let all = try properties("backup")
        XCTAssertEqual(all["Name"], .string("backup"))
        XCTAssertEqual(all["Title"], .string("Backup"))
        XCTAssertEqual(all["State"], .string("running"))
        XCTAssertEqual(all["Indeterminate"], .bool(false))
        XCTAssertEqual(all["Fraction"], .double(0.3))
        XCTAssertEqual(all["Completed"], .uint64(3))
        XCTAssertEqual(all["Total"], .uint64(10))
        XCTAssertEqual(all["Unit"], .string("files"))
        XCTAssertEqual(all["Message"], .string("Documents"))
        XCTAssertEqual(all["AppId"], .string("org.example.Backup"))
        XCTAssertEqual(all["UpdatesFrequently"], .bool(false))
        XCTAssertEqual(all["Serial"], .uint64(1))
        XCTAssertEqual(all["Label"], .string("30%"))
        let created = try XCTUnwrap(all["Created"]?.integer)
        let updated = try XCTUnwrap(all["Updated"]?.integer)
        XCTAssertLessThanOrEqual(created, updated)
        XCTAssertLessThan(abs(Double(updated) / 1e6 - Date().timeIntervalSince1970), 60)
        XCTAssertEqual(all["Stalled"], .bool(false))
        XCTAssertEqual(all["Lifetime"], .string("lease"))
        XCTAssertEqual(all["Cancellable"], .bool(false))
        XCTAssertEqual(all["Pausable"], .bool(false))
        XCTAssertEqual(all["CancelRequested"], .bool(false))
        XCTAssertEqual(all["Parent"], .string(""))
        XCTAssertEqual(all["Weight"], .double(1))
        XCTAssertEqual(all["Detail"], .string("3 of 10 files"))
        XCTAssertEqual(all["AccessibleText"], .string("Backup: 30 percent"))
        XCTAssertEqual(all["Rate"], .double(0))
        XCTAssertEqual(all["SecondsRemaining"], .int64(-1))
        XCTAssertEqual(all.count, 26)
    }

    func testPulseFinishFailAndRemove() throws {
        try start("a")
        try manager("Pulse", [.string("a")])
        XCTAssertEqual(try property("a", "Indeterminate"), .bool(true))
        XCTAssertEqual(try property("a", "Label"), .string(""))
        try manager("SetFraction", [.string("a"), .double(0.5)])
        try manager("Finish", [.string("a")])
        XCTAssertEqual(try property("a", "State"), .string("finished"))
        XCTAssertEqual(try property("a", "Fraction"), .double(1))
        XCTAssertEqual(try property("a", "Label"), .string("100%"))
        try start("b")
        try manager("Fail", [.string("b"), .string("disk full")])
        XCTAssertEqual(try property("b", "State"), .string("failed"))
        XCTAssertEqual(try property("b", "Message"), .string("disk full"))
        try manager("Remove", [.string("a")])
        XCTAssertEqual(try manager("List").first?.strings, ["b"])
    }

    func testManagerProperties() throws {
        try start("a")
        try start("b")
        let all = try client.call(
            BusNames.busName, BusNames.managerPath, BusNames.propertiesInterface, "GetAll",
            [.string(BusNames.managerInterface)]
        ).first?.dictionary
        XCTAssertEqual(all?["Version"], .string("0.1.0"))
        XCTAssertEqual(all?["TaskCount"], .uint32(2))
    }

    func testSnapshotInTheCallersLocale() throws {
        try start("a", [("fraction", .double(0.42))])
        try start("b", [("indeterminate", .bool(true))])
        let french = try XCTUnwrap(manager("Snapshot", [.string("fr_FR.UTF-8")]).first?.dictionary)
        XCTAssertEqual(Set(french.keys), ["a", "b"])
        XCTAssertEqual(french["a"]?["Label"], .string("42\u{A0}%"))
        XCTAssertEqual(french["a"]?["Fraction"], .double(0.42))
        XCTAssertEqual(french["b"]?["Label"], .string(""))
        let daemonLocale = try XCTUnwrap(manager("Snapshot", [.string("")]).first?.dictionary)
        XCTAssertEqual(daemonLocale["a"]?["Label"], .string("42%"))
        XCTAssertEqual(try manager("Snapshot", [.string("tr-TR")]).first?["a"]?["Label"], .string("%42"))
    }

    func testGetManagedObjectsAndObjectSignals() throws {
        var added: [String] = []
        var removed: [String] = []
        listener.subscribe(interface: BusNames.objectManagerInterface, path: BusNames.managerPath) { signal in
            let path = signal.arguments[0].string ?? ""
            if signal.member == "InterfacesAdded" {
                XCTAssertEqual(signal.arguments[1][BusNames.taskInterface]?["Name"], .string("x"))
                added.append(path)
            } else {
                XCTAssertEqual(signal.arguments[1].strings, [BusNames.taskInterface])
                removed.append(path)
            }
        }
        try listener.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId")
        try start("x", [("fraction", .double(0.25))])
        let objects = try XCTUnwrap(
            client.call(BusNames.busName, BusNames.managerPath, BusNames.objectManagerInterface, "GetManagedObjects")
                .first?.dictionary)
        XCTAssertEqual(objects["/org/progressd/Progress1/tasks/x"]?[BusNames.taskInterface]?["Fraction"], .double(0.25))
        try manager("Remove", [.string("x")])
        XCTAssertTrue(BusConnection.pump(seconds: 10) { removed.count == 1 })
        XCTAssertEqual(added, ["/org/progressd/Progress1/tasks/x"])
        XCTAssertEqual(removed, ["/org/progressd/Progress1/tasks/x"])
    }

    func testACallerTaskFailsWhenItsConnectionLeavesTheBus() throws {
        var job: BusConnection? = try bus.connect()
        try start("copy", [("lifetime", .string("caller"))], on: job)
        try manager("SetFraction", [.string("copy"), .double(0.3)], on: job)
        let recorder = try recordProperties(of: "copy")
        job = nil  // the job "crashes": its connection closes
        XCTAssertTrue(BusConnection.pump(seconds: 10) { recorder.values("State").contains(.string("failed")) })
        XCTAssertEqual(try property("copy", "State"), .string("failed"))
        XCTAssertTrue(try property("copy", "Message").string?.contains("owner went away") == true)
        XCTAssertEqual(try property("copy", "Fraction"), .double(0.3))
    }

    /// The default lifetime is a lease: the one-shot `gdbus call` of a script leaves the task running.
    func testAOneShotCallerLeavesItsTaskRunning() throws {
        let script: String
        do {
            let connection = try bus.connect()
            script = connection.uniqueName
            try start("script", on: connection)
        }
        // A call after the one-shot connection is gone proves the daemon saw it go.
        waitUntilGone(script)
        XCTAssertEqual(try property("script", "State"), .string("running"))
    }

    func testUpdateManyAppliesEntriesInOrder() throws {
        try start("a")
        try start("b")
        func entry(_ name: String, _ changes: [(String, BusValue)]) -> BusValue {
            .tuple([.string(name), .vardict(changes)])
        }
        let batch: [BusValue] = [
            entry("a", [("fraction", .double(0.1))]), entry("b", [("title", .string("B"))]),
            entry("a", [("fraction", .double(0.2))]),
        ]
        try manager("UpdateMany", [.array(elementType: "(sa{sv})", batch)])
        XCTAssertEqual(try property("a", "Fraction"), .double(0.2))
        XCTAssertEqual(try property("b", "Title"), .string("B"))

        let malformed: [BusValue] = [entry("a", [("fraction", .double(0.9))]), entry("b", [("colour", .string("red"))])]
        assertBusError("UnknownOption", "entry 1: option 'colour'") {
            try self.manager("UpdateMany", [.array(elementType: "(sa{sv})", malformed)])
        }
        XCTAssertEqual(try property("a", "Fraction"), .double(0.2), "a malformed batch changes nothing")

        try manager("Finish", [.string("b")])
        let stopping: [BusValue] = [entry("a", [("fraction", .double(0.5))]), entry("b", [("fraction", .double(0.5))]),
                                    entry("a", [("fraction", .double(0.7))])]
        assertBusError("InvalidValue", "entry 1 (the 1 before it were applied): task 'b' is finished") {
            try self.manager("UpdateMany", [.array(elementType: "(sa{sv})", stopping)])
        }
        XCTAssertEqual(try property("a", "Fraction"), .double(0.5))
    }

    /// Issue 12: Get and GetAll on a task path that names no task answered UnknownMethod.
    func testPropertiesOfAMissingTaskAreUnknownObject() throws {
        try start("here")
        for (method, arguments) in [("Get", [BusValue.string(BusNames.taskInterface), .string("Fraction")]),
                                    ("GetAll", [.string(BusNames.taskInterface)])] {
            XCTAssertThrowsError(try client.call(
                BusNames.busName, BusNames.tasksPath + "/gone", BusNames.propertiesInterface, method, arguments)
            ) { error in
                XCTAssertEqual(
                    (error as? BusCallError)?.name, "org.freedesktop.DBus.Error.UnknownObject", "\(method): \(error)")
                XCTAssertTrue((error as? BusCallError)?.message.contains("/gone") == true)
            }
        }
        XCTAssertEqual(try property("here", "Name"), .string("here"))
        XCTAssertEqual(try properties("here")["Name"], .string("here"))
    }
}
