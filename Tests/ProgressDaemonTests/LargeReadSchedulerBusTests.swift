import Foundation
import ProgressBus
import ProgressClient
import ProgressCore
import ProgressModel
@testable import ProgressDaemon
import ProgressTestSupport
import XCTest

/// Large reads written in slices keep one connection's replies in order: a Snapshot of more
/// tasks than a slice, then a Start, then a SnapshotPage, sent at once on one connection,
/// are answered in that order; the Snapshot does not show the Start that came after it, and
/// the page does.
final class LargeReadSchedulerBusTests: DaemonTestCase {
    /// More values than a read written whole in its call, and more tasks than two slices.
    static let tasks = LargeReadScheduler.wholeReadValues(Limits())
        / SlicedReply.Element.taskValues(properties: TaskPropertyTable.standard.descriptors.count) + 45

    private func startTasks() throws {
        try startTasks((0..<Self.tasks).map { String(format: "task-%04d", $0) })
    }

    func testRepliesOfOneConnectionStayInOrderAroundASlicedSnapshot() throws {
        try startTasks()
        let connection = try bus.connect()
        var answered: [String] = []
        var snapshot: [String: BusValue] = [:]
        var page: [String: BusValue] = [:]
        var failures: [String] = []
        func call(_ method: String, _ arguments: [BusValue], _ done: @escaping ([BusValue]) -> Void) {
            connection.callAsync(
                BusNames.busName, BusNames.managerPath, BusNames.managerInterface, method, arguments) { result in
                answered.append(method)
                switch result {
                case .success(let values): done(values)
                case .failure(let error): failures.append("\(method): \(error)")
                }
            }
        }
        call("Snapshot", [.string("")]) { snapshot = $0[0].dictionary ?? [:] }
        call("Start", [.string("zz-started-after"), .vardict([])]) { _ in }
        call("SnapshotPage", [.string(""), .string("task-9999"), .uint32(10)]) { page = $0[0].dictionary ?? [:] }
        XCTAssertGreaterThan(Self.tasks, 2 * LargeReadScheduler.defaultSliceTasks)
        XCTAssertTrue(BusConnection.pump(seconds: 30) { answered.count == 3 })
        XCTAssertEqual(failures, [])
        XCTAssertEqual(answered, ["Snapshot", "Start", "SnapshotPage"])
        XCTAssertEqual(snapshot.count, Self.tasks, "the Snapshot holds every task started before it")
        XCTAssertNil(snapshot["zz-started-after"], "the Start waited for the Snapshot's reply")
        XCTAssertEqual(Set(page.keys), ["zz-started-after"], "the page sees the Start before it")
        // The whole table read in pages is the Snapshot, task for task.
        var paged: [String: BusValue] = [:]
        var after = ""
        repeat {
            let reply = try manager("SnapshotPage", [.string(""), .string(after), .uint32(0)])
            paged.merge(reply[0].dictionary ?? [:]) { $1 }
            after = reply[1].string ?? ""
        } while !after.isEmpty
        paged["zz-started-after"] = nil
        XCTAssertEqual(paged.keys.sorted(), snapshot.keys.sorted())
        XCTAssertEqual(paged["task-0200"]?.description, snapshot["task-0200"]?.description)
    }
}

/// Large reads of two callers are written side by side, in turns: while one process reads a
/// Snapshot of many slices, another process's pages of 200 tasks (each written whole in its
/// call) are answered one after another, and the Snapshot is answered while they go on (the
/// reader waits for its reply).
/// The order is the daemon's own, read from the serials of its replies, never from a clock.
final class LargeReadTurnsBusTests: DaemonTestCase {
    static let tasks = 5_000
    /// A Snapshot of 5,000 tasks (535,005 values) is allowed here, to be written over many turns.
    override var daemonArguments: [String] {
        ["--max-tasks-per-caller", "\(Self.tasks)", "--max-reply-values", "1000000"]
    }

    /// Two processes (two callers), each with its own connection: the other one reads the
    /// first page of 200 tasks back to back until the reader has its Snapshot; the reader
    /// reads TaskCount, then the Snapshot.
    private static let script = """
        import dbus, os
        NAME, PATH = '\(BusNames.busName)', '\(BusNames.managerPath)'
        MANAGER, PROPERTIES = '\(BusNames.managerInterface)', 'org.freedesktop.DBus.Properties'
        def call(bus, method, *args, interface=MANAGER):
            message = dbus.lowlevel.MethodCallMessage(NAME, PATH, interface, method)
            if args:
                message.append(*args)
            return bus.send_message_with_reply_and_block(message, 120000).get_serial()
        def connect():
            return dbus.bus.BusConnection(os.environ['DBUS_SESSION_BUS_ADDRESS'])
        ready_r, ready_w = os.pipe()
        stop_r, stop_w = os.pipe()
        child = os.fork()
        if child == 0:
            os.close(ready_r)
            os.close(stop_w)
            os.set_blocking(stop_r, False)
            bus, pages = connect(), []
            while True:
                pages.append(call(bus, 'SnapshotPage', '', '', dbus.UInt32(200)))
                if len(pages) == 1:
                    os.write(ready_w, b'r')
                try:
                    if os.read(stop_r, 1) == b'':
                        break
                except BlockingIOError:
                    pass
            print('pages', *pages, flush=True)
            os._exit(0)
        os.close(ready_w)
        os.close(stop_r)
        os.read(ready_r, 1)
        bus = connect()
        before = call(bus, 'Get', MANAGER, 'TaskCount', interface=PROPERTIES)
        snapshot = call(bus, 'Snapshot', '')
        os.close(stop_w)
        os.waitpid(child, 0)
        print('reader', before, snapshot, flush=True)
        """

    func testAnotherCallersPagesAreAnsweredWhileASnapshotIsWritten() throws {
        try startTasks((0..<Self.tasks).map { String(format: "task-%05d", $0) })
        let result = try CommandResult.run("/usr/bin/python3", ["-c", Self.script], environment: bus.environment)
        XCTAssertEqual(result.status, 0, result.errors)
        let lines = result.output.split(separator: "\n").map { $0.split(separator: " ") }
        let pages = try XCTUnwrap(lines.first { $0.first == "pages" }).dropFirst().compactMap { Int($0) }
        let reader = try XCTUnwrap(lines.first { $0.first == "reader" }).dropFirst().compactMap { Int($0) }
        XCTAssertEqual(reader.count, 2)
        let (before, snapshot) = (reader[0], reader[1])
        let during = pages.filter { $0 > before && $0 < snapshot }.count
        // One read at a time answered at most the page in hand when the Snapshot came (the
        // next parked until the Snapshot was whole); in turns, the pages go on meanwhile.
        XCTAssertGreaterThanOrEqual(during, 3, "pages answered meanwhile: \(during) of \(pages.count)")
    }
}

/// A read of every task whose least size passes the limit is refused with the documented
/// error, as one that is built and found too big is.
final class LargeReadRefusalTests: DaemonTestCase {
    override var daemonArguments: [String] { ["--max-reply-bytes", "65536"] }

    func testReadsOfEveryTaskAreRefusedWithTheDocumentedError() throws {
        // 200 tasks of at least some 500 bytes each in a Snapshot: about 100,000 bytes.
        try startTasks((0..<200).map { "t\($0)" })
        assertBusError("LimitExceeded", "Snapshot of all 200 tasks would be more than 65536 bytes") {
            try self.manager("Snapshot", [.string("")])
        }
        assertBusError("LimitExceeded", "GetManagedObjects of all 200 tasks would be more than 65536 bytes") {
            try self.client.call(
                BusNames.busName, BusNames.managerPath, "org.freedesktop.DBus.ObjectManager", "GetManagedObjects")
        }
        assertBusError("LimitExceeded", "Changes would answer with 200 tasks, more than 65536 bytes") {
            try self.manager("Changes", [.uint64(0), .vardict([])])
        }
        // What fits is still answered: the names, and Changes of one property.
        XCTAssertEqual(try manager("List").first?.array?.count, 200)
        XCTAssertEqual(
            try manager(
                "Changes", [.uint64(0), .vardict([("properties", .array(elementType: "s", [.string("Name")]))])]
            )[2].dictionary?.count, 200)
    }
}

extension DaemonTestCase {
    /// Starts tasks of these names, 64 in flight (the bus allows a connection only so many).
    func startTasks(_ names: [String]) throws {
        for first in stride(from: 0, to: names.count, by: 64) {
            let arguments = names[first..<min(first + 64, names.count)].map { [BusValue.string($0), .vardict([])] }
            for result in client.callAll(
                BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Start", arguments) {
                _ = try result.get()
            }
        }
    }
}

/// At the default limit of values, a read of every task that would hold more is refused at
/// once with the documented error, naming the tasks, the values, the limit and the paged
/// method; one task fewer is answered, and the pages and List go on.
final class ReplyValueLimitTests: DaemonTestCase {
    /// A task in a Snapshot: its entry, name and dictionary, and 4 values for each of its 26 properties.
    static let perTask = 3 + 4 * 26
    /// One task more than a Snapshot of the default limit holds (1,225).
    static let tasks = (Limits().maxReplyValues - 5) / perTask + 1
    override var daemonArguments: [String] { ["--max-tasks-per-caller", "2000"] }

    func testReadsOverTheValueLimitAreRefusedWithTheDocumentedError() throws {
        XCTAssertEqual(TaskPropertyTable.standard.descriptors.count, 26)
        XCTAssertEqual(Self.tasks, 1_225)
        try startTasks((0..<Self.tasks).map { String(format: "task-%04d", $0) })
        let snapshotValues = 5 + Self.tasks * Self.perTask
        assertBusError(
            "LimitExceeded",
            "Snapshot of all 1225 tasks would be \(snapshotValues) values, more than the 131072 one reply may carry "
                + "(other clients wait while a reply is sent); read them in pages with SnapshotPage"
        ) { try self.manager("Snapshot", [.string("")]) }
        assertBusError("LimitExceeded", "GetManagedObjects of all 1225 tasks would be \(5 + Self.tasks * 110) values") {
            try self.client.call(BusNames.busName, BusNames.managerPath, "org.freedesktop.DBus.ObjectManager",
                                 "GetManagedObjects")
        }
        assertBusError("LimitExceeded", "Changes would answer with 1225 tasks, \(snapshotValues) values, more than the "
                       + "131072 one reply may carry; ask for fewer \"properties\"") {
            try self.manager("Changes", [.uint64(0), .vardict([])])
        }
        // What fits is answered: the names, Changes of a few properties, every page.
        XCTAssertEqual(try manager("List").first?.array?.count, Self.tasks)
        let few = BusValue.array(elementType: "s", ["Name", "State", "Fraction", "Title"].map { .string($0) })
        XCTAssertEqual(try manager("Changes", [.uint64(0), .vardict([("properties", few)])])[2].dictionary?.count,
                       Self.tasks)
        let first = try manager("SnapshotPage", [.string(""), .string(""), .uint32(0)])
        XCTAssertEqual(first[0].dictionary?.count, Limits().maxPageTasks)
        let rest = try manager("SnapshotPage", [.string(""), .string(first[1].string ?? ""), .uint32(0)])
        XCTAssertEqual(rest[0].dictionary?.count, Self.tasks - Limits().maxPageTasks)
        // One task fewer is a Snapshot that fits.
        try manager("Remove", [.string("task-0000")])
        XCTAssertEqual(try manager("Snapshot", [.string("")]).first?.dictionary?.count, Self.tasks - 1)
    }
}

/// A lower limit of values makes every page smaller, so that no page passes it.
final class PageValueLimitTests: DaemonTestCase {
    override var daemonArguments: [String] { ["--max-reply-values", "4096"] }

    func testPagesHoldNoMoreValuesThanTheLimit() throws {
        try startTasks((0..<100).map { String(format: "t%03d", $0) })
        // (4096 - 5) / 107 tasks a page.
        let page = try manager("SnapshotPage", [.string(""), .string(""), .uint32(0)])
        XCTAssertEqual(page[0].dictionary?.count, 38)
        XCTAssertEqual(page[1].string, "t037")
        XCTAssertEqual(try manager("SnapshotPage", [.string(""), .string(""), .uint32(10)])[0].dictionary?.count, 10)
        assertBusError("LimitExceeded", "Snapshot of all 100 tasks would be 10705 values, more than the 4096") {
            try self.manager("Snapshot", [.string("")])
        }
    }
}
