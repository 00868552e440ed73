import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// The owner rules, names and caps on a private bus, from host clients (this test process,
/// and gdbus processes of its own). SandboxTests covers a sandboxed app behind a proxy.
final class AccessBusTests: DaemonTestCase {
    /// Today's behaviour kept: the host is one identity, so another connection, and a one-shot
    /// gdbus process, drive a task a first connection started.
    func testASecondHostConnectionStillDrivesTheTask() throws {
        try start("copy", [("title", .string("Copying")), ("pausable", .bool(true)), ("lifetime", .string("caller"))])
        let second = try bus.connect()
        try manager("SetFraction", [.string("copy"), .double(0.5)], on: second)
        try manager("Update", [.string("copy"), .vardict([("message", .string("half"))])], on: second)
        try manager("RequestPause", [.string("copy")], on: second)
        XCTAssertEqual(try gdbus("Pulse", "copy").status, 0)
        XCTAssertEqual(try gdbus("Finish", "copy").status, 0)
        XCTAssertEqual(try property("copy", "State"), .string("finished"))
        XCTAssertEqual(try gdbus("Remove", "copy").status, 0)
        XCTAssertEqual(try manager("List").first?.strings, [])
    }

    func testACallerTaskIsNotTakenOverFromALiveConnectionWithoutTheOption() throws {
        try start("job", [("lifetime", .string("caller")), ("title", .string("Mine"))])
        let newcomer = try bus.connect()
        assertBusError(
            "AccessDenied",
            "task 'job' is bound to connection \(client.uniqueName), which is still on the bus; "
                + "only that connection may start it again, or a Start with take-over: true"
        ) { try self.start("job", [("title", .string("Theirs"))], on: newcomer) }
        XCTAssertEqual(try property("job", "Title"), .string("Mine"), "the refused Start changed nothing")
        // A newcomer that leaves no longer fails the job's task.
        _ = try bus.connect()
        XCTAssertEqual(try property("job", "State"), .string("running"))

        try start("job", [("take-over", .bool(true)), ("title", .string("Theirs"))], on: newcomer)
        XCTAssertEqual(try property("job", "Title"), .string("Theirs"))
        // Now the newcomer holds it: its departure fails the task, the first client's does not.
        let path = try XCTUnwrap(try start("other", [("lifetime", .string("caller"))]))
        XCTAssertFalse(path.isEmpty)
        client = try bus.connect()
        XCTAssertTrue(BusConnection.pump(seconds: 5) { (try? self.property("other", "State")) == .string("failed") })
        XCTAssertEqual(try property("job", "State"), .string("running"))
    }

    func testAJobWhoseConnectionIsGoneReattaches() throws {
        let job = try bus.connect()
        try start("job", [("lifetime", .string("caller")), ("linger-seconds", .uint32(600))], on: job)
        let jobName = job.uniqueName
        XCTAssertFalse(jobName.isEmpty)
        try manager("Fail", [.string("job"), .string("crashed")])
        try start("job", [("lifetime", .string("caller"))])
        XCTAssertEqual(try property("job", "State"), .string("running"), "an ended task starts afresh")
    }

    /// NFC "café" and NFD "café" are one task with one path: the one Start returns and
    /// GetManagedObjects lists; the NFD spelling's path is no object.
    func testTheNFCAndNFDSpellingsAreOneTaskWithOnePath() throws {
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        XCTAssertNotEqual(Array(composed.utf8), Array(decomposed.utf8))
        let first = try start(decomposed, [("title", .string("first"))])
        let second = try start(composed, [("title", .string("second"))])
        XCTAssertEqual(first, BusNames.managerPath + "/tasks/caf_c3_a9")
        XCTAssertEqual(second, first)
        XCTAssertEqual(try manager("List").first?.strings.map { $0.map { Array($0.utf8) } }, [Array(composed.utf8)])
        let objects = try client.call(
            BusNames.busName, BusNames.managerPath, "org.freedesktop.DBus.ObjectManager", "GetManagedObjects")
        XCTAssertEqual(objects.first?.dictionary.map { Array($0.keys) }, [first])
        let name = try client.call(
            BusNames.busName, first, BusNames.propertiesInterface, "Get",
            [.string(BusNames.taskInterface), .string("Name")])
        XCTAssertEqual(
            name.first?.unboxed.string.map { Array($0.utf8) }, Array(composed.utf8), "the name is kept in NFC")
        XCTAssertThrowsError(try client.call(
            BusNames.busName, BusNames.managerPath + "/tasks/cafe_cc_81", BusNames.propertiesInterface, "Get",
            [.string(BusNames.taskInterface), .string("Title")]), "the NFD path is not the task's")
        try manager("Remove", [.string(decomposed)])
        XCTAssertEqual(try manager("List").first?.strings, [])
    }

    /// A connection that leaves while its Start waits for its identity: the Start is still
    /// handled first, and the departure then fails the caller task it started (it is not
    /// left running, bound to a connection that is gone).
    func testALeavingConnectionsWaitingCallsAreHandledBeforeItsDeparture() throws {
        var job: BusConnection? = try bus.connect()
        job?.send(
            BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Start",
            [.string("short"), .vardict([("lifetime", .string("caller"))])])
        job?.flush()
        job = nil
        XCTAssertTrue(BusConnection.pump(seconds: 10) { (try? self.property("short", "State")) == .string("failed") })
        XCTAssertTrue(try XCTUnwrap(property("short", "Message").string).hasPrefix("owner went away"))
    }

    func testNamesWithCharactersThatDoNotShowAreRefused() throws {
        assertBusError("InvalidName", "contains U+200B ZERO WIDTH SPACE, a default-ignorable character") {
            try self.start("back\u{200B}up")
        }
        assertBusError("InvalidName", "U+202E RIGHT-TO-LEFT OVERRIDE") { try self.start("\u{202E}txt.exe") }
        XCTAssertEqual(try manager("List").first?.strings, [])
    }

    /// A new connection's calls wait for its identity; pipelined, they are still handled in
    /// the order sent (a SetFraction before its Start would be NoSuchTask).
    func testCallsThatWaitForTheIdentityAreHandledInOrder() throws {
        let fresh = try bus.connect()
        let first = fresh.callAll(
            BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Start",
            [[.string("ordered"), .vardict([])]])
        XCTAssertNoThrow(try first[0].get())
        // Start (sent without waiting) and then 40 Updates, all sent before the first reply:
        // they all wait behind the one identity lookup.
        let burst = try bus.connect()
        burst.send(
            BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Start",
            [.string("burst"), .vardict([])])
        let results = burst.callAll(
            BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Update",
            (1...40).map { [.string("burst"), .vardict([("fraction", .double(Double($0) / 40))])] })
        for result in results { XCTAssertNoThrow(try result.get()) }
        XCTAssertEqual(try property("burst", "Fraction"), .double(1))
        let pipelined = try bus.connect()
        let mixed = pipelined.callAll(
            BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Start",
            (0..<20).map { [.string("p\($0)"), .vardict([("lifetime", .string("caller"))])] })
        for result in mixed { XCTAssertNoThrow(try result.get()) }
        XCTAssertEqual(try manager("List").first?.strings?.filter { $0.hasPrefix("p") }.count, 20)
    }
}

/// Subscriptions count per process: one process with 64 connections gets its 16, no more,
/// and a screen reader (another process) still subscribes.
final class SubscriptionShareTests: DaemonTestCase {
    func testOneProcessWith64ConnectionsCanNotTakeTheSubscriptionTotal() throws {
        let connections = try (0..<64).map { _ in try bus.connect() }
        var accepted = 0
        var refusal = ""
        for connection in connections {
            let results = connection.callAll(
                BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Subscribe",
                Array(repeating: [.vardict([])], count: 16))
            for result in results {
                switch result {
                case .success: accepted += 1
                case .failure(let error): refusal = error.message
                }
            }
        }
        XCTAssertEqual(accepted, 16, "one process holds 16 subscriptions, however many connections it opens")
        let pid = ProcessInfo.processInfo.processIdentifier
        XCTAssertEqual(
            refusal, "process \(pid) holds 16 subscriptions; the limit per process (a sandboxed app is one) is 16")
        let reader = try CommandResult.run(
            "gdbus",
            ["call", "--session", "--dest", BusNames.busName, "--object-path", BusNames.managerPath,
             "--method", "\(BusNames.managerInterface).Subscribe", "{'announcements': <true>}"],
            environment: bus.environment)
        XCTAssertEqual(reader.status, 0, reader.errors)
        XCTAssertTrue(reader.output.contains("/org/progressd/Progress1/subscriptions/"), reader.output)
    }
}
