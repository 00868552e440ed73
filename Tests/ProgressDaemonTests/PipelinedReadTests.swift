import ProgressBus
import ProgressClient
import ProgressModel
import ProgressTestSupport
import XCTest

/// A client that sends Start and, without waiting for its reply, reads the task it started
/// (Get, GetAll) and the manager's objects (GetManagedObjects) sees its own Start applied:
/// reads wait their caller's turn as method calls do. A fresh connection is the hard case:
/// the daemon is still learning who it is, so its Start waits for that while the reads
/// arrive behind it.
final class PipelinedReadTests: DaemonTestCase {
    func testReadsSentRightAfterAStartOnAFreshConnectionSeeTheTask() throws {
        for round in 0..<50 {
            let connection = try bus.connect()
            let name = "pipelined/\(round)"
            let path = BusNames.taskPath(try TaskName(name))
            var replies: [String: Result<[BusValue], BusCallError>] = [:]
            connection.callAsync(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Start", [
                .string(name),
                .array(elementType: "{sv}", [.dictEntry(.string("title"), .variant(.string("Round \(round)")))]),
            ]) { replies["Start"] = $0 }
            connection.callAsync(BusNames.busName, path, BusNames.propertiesInterface, "Get", [
                .string(BusNames.taskInterface), .string("Title"),
            ]) { replies["Get"] = $0 }
            connection.callAsync(BusNames.busName, path, BusNames.propertiesInterface, "GetAll", [
                .string(BusNames.taskInterface),
            ]) { replies["GetAll"] = $0 }
            connection.callAsync(
                BusNames.busName, BusNames.managerPath, BusNames.objectManagerInterface, "GetManagedObjects") {
                replies["GetManagedObjects"] = $0
            }
            XCTAssertTrue(
                BusConnection.pump(seconds: 25) { replies.count == 4 }, "round \(round): \(replies.keys.sorted())")

            XCTAssertEqual(try replies["Start"]?.get().first?.string, path, "round \(round)")
            XCTAssertEqual(try replies["Get"]?.get().first?.unboxed, .string("Round \(round)"), "round \(round)")
            XCTAssertEqual(
                try replies["GetAll"]?.get().first?.dictionary?["Title"]?.unboxed, .string("Round \(round)"),
                "round \(round)")
            let objects = try XCTUnwrap(replies["GetManagedObjects"]?.get().first?.dictionary, "round \(round)")
            XCTAssertNotNil(objects[path]?[BusNames.taskInterface], "round \(round): GetManagedObjects lacks \(path)")
        }
    }
}
