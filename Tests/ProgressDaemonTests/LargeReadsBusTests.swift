import Foundation
import ProgressBus
import ProgressClient
import ProgressCore
@testable import ProgressDaemon
import ProgressTestSupport
import XCTest

/// Large reads written in slices keep one connection's replies in order: a Snapshot of more
/// tasks than a slice, then a Start, then a SnapshotPage, sent at once on one connection,
/// are answered in that order; the Snapshot does not show the Start that came after it, and
/// the page does.
final class LargeReadsBusTests: DaemonTestCase {
    /// More tasks than two slices.
    static let tasks = 2 * LargeReads.defaultSliceTasks + 45

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
            connection.callAsync(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, method, arguments) { result in
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
            try self.client.call(BusNames.busName, BusNames.managerPath, "org.freedesktop.DBus.ObjectManager", "GetManagedObjects")
        }
        assertBusError("LimitExceeded", "Changes would answer with 200 tasks, more than 65536 bytes") {
            try self.manager("Changes", [.uint64(0), .vardict([])])
        }
        // What fits is still answered: the names, and Changes of one property.
        XCTAssertEqual(try manager("List").first?.array?.count, 200)
        XCTAssertEqual(try manager("Changes", [.uint64(0), .vardict([("properties", .array(elementType: "s", [.string("Name")]))])])[2]
            .dictionary?.count, 200)
    }
}

extension DaemonTestCase {
    /// Starts tasks of these names, 64 in flight (the bus allows a connection only so many).
    func startTasks(_ names: [String]) throws {
        for first in stride(from: 0, to: names.count, by: 64) {
            let arguments = names[first..<min(first + 64, names.count)].map { [BusValue.string($0), .vardict([])] }
            for result in client.callAll(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Start", arguments) {
                _ = try result.get()
            }
        }
    }
}
