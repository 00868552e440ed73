import Foundation
import ProgressBus
import ProgressClient
import ProgressModel
import ProgressTestSupport
import XCTest

/// progressd's tasks shown in a JobViewServer that another process owns (Plasma's shell,
/// here a Python server from KDE's XML: helpers/job-view-server.py).
final class JobViewForwarderTests: KDETestCase {
    private func server() throws -> HelperProcess {
        let server = try helper("job-view-server.py", [Self.xmlPath])
        let ready = waitForEvent(server, "ready")
        // progressd allows replacement: the server takes the name.
        let owner = ready?["owner"] as? String
        XCTAssertTrue(BusConnection.pump(seconds: 10) { self.nameOwner("org.kde.JobViewServer") == owner })
        return server
    }

    private func requests(_ server: HelperProcess, entry: String) -> [[String: Any]] {
        events(server, "requestView").filter { $0["entry"] as? String == entry }
    }

    func testATaskAppearsWithItsValuesAndItsOutcomeTerminatesTheView() throws {
        let server = try server()
        try start("sync", [
            ("title", .string("Syncing photos")), ("app-id", .string("org.example.Sync")), ("total", .uint64(200)),
            ("completed", .uint64(50)), ("unit", .string("files")), ("message", .string("Album 3")),
            ("cancellable", .bool(true)),
        ])
        let request = try XCTUnwrap(
            waitForEvent(server, "requestView") { $0["entry"] as? String == "org.example.Sync" })
        XCTAssertEqual(request["capabilities"] as? Int, 1)
        XCTAssertEqual(request["sender"] as? String, try daemonUniqueName())
        let hints = try XCTUnwrap(request["hints"] as? [String: Any])
        XCTAssertEqual(hints["title"] as? String, "Syncing photos")
        XCTAssertEqual(hints["totalFiles"] as? Int, 200)
        XCTAssertEqual(hints["processedFiles"] as? Int, 50)
        XCTAssertEqual(hints["percent"] as? Int, 25)
        XCTAssertEqual(hints["infoMessage"] as? String, "Album 3")
        XCTAssertNil(hints["immediate"], "Plasma's 500 ms delay is left to drop short tasks")
        let path = try XCTUnwrap(request["path"] as? String)

        try manager("Update", [.string("sync"), .vardict([("completed", .uint64(150))])])
        waitForEvent(server, "update") { event in
            (event["props"] as? [String: Any])?["processedFiles"] as? Int == 150 && event["path"] as? String == path
        }
        try manager("Finish", [.string("sync")])
        let terminate = waitForEvent(server, "terminate") { $0["path"] as? String == path }
        XCTAssertEqual(terminate?["code"] as? Int, 0)
        let last = events(server, "update").last { $0["path"] as? String == path }
        XCTAssertEqual((last?["props"] as? [String: Any])?["percent"] as? Int, 100)

        try start("broken", [("app-id", .string("org.example.Broken"))])
        let broken = try XCTUnwrap(
            waitForEvent(server, "requestView") { $0["entry"] as? String == "org.example.Broken" }?["path"] as? String)
        try manager("Fail", [.string("broken"), .string("Disk full")])
        let failed = waitForEvent(server, "terminate") { $0["path"] as? String == broken }
        XCTAssertEqual(failed?["code"] as? Int, 100)
        XCTAssertEqual(failed?["message"] as? String, "Disk full")
    }

    func testCancelAndPauseFromTheServerReachTheJob() throws {
        let server = try server()
        let job = try bus.connect()
        var requests: [String] = []
        job.subscribe(path: BusNames.taskPath(try TaskName("copy"))) { signal in
            if signal.interface == BusNames.taskInterface { requests.append(signal.member) }
        }
        try start("copy", [("cancellable", .bool(true)), ("pausable", .bool(true)), ("total", .uint64(10))])
        let path = try XCTUnwrap(waitForEvent(server, "requestView")?["path"] as? String)
        XCTAssertEqual(waitForEvent(server, "requestView")?["capabilities"] as? Int, 3)
        server.send("suspend \(path)")
        XCTAssertTrue(BusConnection.pump(seconds: 10) { requests.contains("PauseRequested") }, "\(requests)")
        server.send("cancel \(path)")
        waitForProperty("copy", "CancelRequested", .bool(true))
        XCTAssertTrue(BusConnection.pump(seconds: 10) { requests.contains("CancelRequested") }, "\(requests)")
        // The job answers the request: the view ends as cancelled (KIO's ERR_USER_CANCELED).
        try manager("Update", [.string("copy"), .vardict([("state", .string("cancelled"))])])
        XCTAssertEqual(waitForEvent(server, "terminate") { $0["path"] as? String == path }?["code"] as? Int, 1)
    }

    func testARestartedServerGetsTheLiveTasksAgainAndNothingIsForwardedTwice() throws {
        try start("done", [("app-id", .string("org.example.Done"))])
        try manager("Finish", [.string("done")])
        try start("live", [("app-id", .string("org.example.Live"))])
        try start("live/child", [("parent", .string("live"))])
        // Tasks under kde/ are the KDE input's namespace: never sent back to a server.
        try start("kde/spoof/1", [("app-id", .string("org.example.Spoof"))])
        let first = try server()
        waitForEvent(first, "requestView") { $0["entry"] as? String == "org.example.Live" }
        try manager("Update", [.string("live"), .vardict([("title", .string("Live one"))])])
        waitForEvent(first, "update") { ($0["props"] as? [String: Any])?["title"] as? String == "Live one" }

        // The server goes: progressd serves the names again (it waited in the queue)...
        first.stop()
        let daemonName = try daemonUniqueName()
        XCTAssertTrue(BusConnection.pump(seconds: 10) { self.nameOwner("org.kde.JobViewServer") == daemonName })
        // ...and a new server gets the live task again, once.
        let second = try server()
        let again = waitForEvent(second, "requestView") { $0["entry"] as? String == "org.example.Live" }
        XCTAssertEqual((again?["hints"] as? [String: Any])?["title"] as? String, "Live one")
        // Later's view leaves after whatever the daemon sent the second server for what came
        // before it: once it is there, a second view of Live, or one of Done or Spoof, would be too.
        try waitForMarker("Later's view", send: { try start("later", [("app-id", .string("org.example.Later"))]) }) {
            !requests(second, entry: "org.example.Later").isEmpty
        }
        for server in [first, second] {
            XCTAssertEqual(requests(server, entry: "org.example.Live").count, 1, "one view per server")
            XCTAssertTrue(requests(server, entry: "org.example.Done").isEmpty, "ended tasks are not forwarded")
            XCTAssertTrue(requests(server, entry: "org.example.Spoof").isEmpty, "kde/ tasks are not forwarded")
        }
        XCTAssertEqual(
            events(first, "requestView").count, 1, "the child is not forwarded: \(events(first, "requestView"))")
        XCTAssertEqual(events(second, "requestView").count, 2, "\(events(second, "requestView"))")
    }

    func testUpdatesAreCoalescedToTheSignalRate() throws {
        let server = try server()
        try start("burst", [("total", .uint64(1_000)), ("app-id", .string("org.example.Burst"))])
        let path = try XCTUnwrap(waitForEvent(server, "requestView")?["path"] as? String)
        let began = Date()
        for completed in 1...200 {
            client.send(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Update",
                        [.string("burst"), .vardict([("completed", .uint64(UInt64(completed)))])])
        }
        client.flush()
        waitForEvent(server, "update") { ($0["props"] as? [String: Any])?["processedBytes"] as? Int == 200 }
        let elapsed = Date().timeIntervalSince(began)
        let updates = events(server, "update").filter { $0["path"] as? String == path }
        // The first update after the reply, then at most 10 a second (the default rate) and the trailing edge.
        XCTAssertLessThanOrEqual(updates.count, 3 + Int(elapsed * 10), "\(updates.count) updates in \(elapsed) s")
        print("200 task updates in \(String(format: "%.2f", elapsed)) s reached the server as "
            + "\(updates.count) update() calls")
    }
}
