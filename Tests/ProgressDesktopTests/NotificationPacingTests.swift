import CGLib
import Foundation
import ProgressBus
import ProgressClient
import ProgressModel
import ProgressPolicies
@testable import ProgressDaemon
import ProgressDesktop
import ProgressTestSupport
import ProgressText
import XCTest

/// NotificationOutput's timed rules in-process, on the test's time: the daemon's parts
/// (ProgressService and the output) run in this process on a ManualTimerClock, and talk to
/// the specification server (helpers/notification-server.py) on a private bus. Time moves
/// only with `clock.advance`, which runs the output's timer when its deadline comes, so
/// "at most once a second" and "nothing more afterwards" are checked exactly, without
/// waiting. NotificationSpecTests keeps the rules' texts and wiring on a real progressd.
final class NotificationPacingTests: DaemonTestCase {
    /// The service runs in this process: the fixture gives the bus, no progressd.
    override var startsDaemonAtSetUp: Bool { false }
    private let clock = ManualTimerClock()
    private var server: HelperProcess!
    private var service: ProgressService!
    /// The daemon's connection: its calls reach the server in the order it made them.
    private var connection: OpaquePointer!
    /// A client of no connection on the bus, so none of its tasks fails for a departure.
    private let origin = ChangeOrigin.client(ClientID(":1.9999"))

    override func setUpWithError() throws {
        try super.setUpWithError()
        server = try HelperProcess(
            "/usr/bin/python3",
            [NotificationSpecTestCase.helpersDirectory.appendingPathComponent("notification-server.py").path,
             "body,body-markup,actions,persistence"],
            environment: bus.environment, readsCommands: true)
        helpers.append(server)
        XCTAssertNotNil(server.waitForLine { $0.contains("\"ready\"") }, "the server started")
        var error: UnsafeMutablePointer<GError>?
        let flags = GDBusConnectionFlags(
            rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        // Kept for the process's life (as in OnePathTests): GDBus may still hold it on its
        // worker thread after the bus is gone.
        connection = try XCTUnwrap(g_dbus_connection_new_for_address_sync(bus.address, flags, nil, nil, &error))
        g_dbus_connection_set_exit_on_close(connection, 0)
        let texts = TaskDescriber(locale: .english, catalog: MessageCatalog())
        let configuration = ServiceConfiguration(
            limits: Limits(), version: "test", texts: texts, textsForLocale: { _ in texts })
        service = try ProgressService(
            connection: connection, configuration: configuration, clock: MainLoopClock(runningTimersOn: clock))
        service.context.add(NotificationOutput(context: service.context, mode: .outcomes, notifyAfterSeconds: 0))
        try service.register()
        // The output asks what the server can do as soon as it sees it.
        XCTAssertTrue(BusConnection.pump(seconds: 10) { self.events("capabilities").count == 1 })
        try settleService()
    }

    override func tearDown() {
        service?.unregister()
        service = nil
        super.tearDown()
    }

    private func events(_ kind: String) -> [[String: Any]] {
        server.lines.compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                return nil
            }
            return object["event"] as? String == kind ? object : nil
        }
    }

    private var notifies: [[String: Any]] { events("notify") }
    private var summaries: [String] { notifies.compactMap { $0["summary"] as? String } }

    /// Returns once the output has sent everything it was going to send for what happened
    /// so far, and the server has printed it: a GetCapabilities on the output's connection
    /// is printed after every Notify sent before it, and the replies that came before its
    /// own have been handled (a reply may send the newest state: then again).
    private func settleService(file: StaticString = #filePath, line: UInt = #line) throws {
        for _ in 0..<20 {
            BusConnection.drain()  // the group commit (an idle source) and what arrived
            let before = server.lines.count
            let marks = events("capabilities").count
            var error: UnsafeMutablePointer<GError>?
            let reply = g_dbus_connection_call_sync(
                connection, "org.freedesktop.Notifications", "/org/freedesktop/Notifications",
                "org.freedesktop.Notifications", "GetCapabilities", nil, nil, G_DBUS_CALL_FLAGS_NONE, 10_000, nil,
                &error)
            guard let reply else { throw BusCallError(consuming: error) }
            g_variant_unref(reply)
            XCTAssertTrue(
                BusConnection.pump(seconds: 10) { self.events("capabilities").count > marks }, file: file, line: line)
            BusConnection.drain()
            if server.lines.count == before + 1 { return }  // only the mark: nothing new was sent
        }
        XCTFail("the output kept sending", file: file, line: line)
    }

    private func fail(_ name: String, title: String, app: String) {
        var update = TaskUpdate()
        update.title = title
        update.appId = app
        XCTAssertNil(service.context.perform(.start(try! TaskName(name), update), by: origin))
        XCTAssertNil(service.context.perform(.fail(try! TaskName(name), message: "broken"), by: origin))
    }

    /// Issue 22, case 4: a burst is told by its first outcome alone, then by one summary
    /// that replaces it in place and is updated at most once a second; it ends with the count
    /// of the whole burst, and nothing comes after.
    func testABurstsSummaryIsUpdatedAtMostOnceASecondAndEndsWithTheWholeCount() throws {
        fail("t0", title: "Task 0", app: "org.example.Backup")
        try settleService()
        XCTAssertEqual(summaries, ["Task 0"], "the first outcome is told at once, alone")
        for index in 1...3 { fail("t\(index)", title: "Task \(index)", app: "org.example.Backup") }
        try settleService()
        XCTAssertEqual(
            summaries, ["Task 0", "2 tasks failed"], "the summary goes at once the first time, with what came by then")
        clock.advance(micros: 999_999)
        try settleService()
        XCTAssertEqual(summaries.count, 2, "not again within the second: \(summaries)")
        clock.advance(micros: 1)
        try settleService()
        XCTAssertEqual(summaries.last, "4 tasks failed", "a second after the last one, the summary is updated")
        fail("t4", title: "Task 4", app: "org.example.Backup")
        try settleService()
        XCTAssertEqual(summaries.count, 3, "not again within the second: \(summaries)")
        clock.advance(seconds: 1)
        try settleService()
        XCTAssertEqual(summaries.last, "5 tasks failed")
        // A burst that keeps coming for three seconds, ten failures each tenth of a second.
        for step in 0..<30 {
            for index in 0..<10 { fail("s\(step)-\(index)", title: "Step \(step)", app: "org.example.Backup") }
            try settleService()
            clock.advance(micros: 100_000)
        }
        try settleService()
        let during = summaries.count - 4
        XCTAssertLessThanOrEqual(during, 3, "at most one summary a second over three seconds: \(summaries)")
        XCTAssertGreaterThanOrEqual(during, 2, "updated while the burst goes on: \(summaries)")
        clock.advance(seconds: 60)
        try settleService()
        XCTAssertEqual(
            summaries.last, "305 tasks failed", "the summary ends with the whole count: \(summaries.suffix(3))")
        let all = notifies
        XCTAssertEqual(
            all.map { ($0["open"] as? [Int])?.count ?? 0 }.max(), 1, "one notification on screen at any time")
        XCTAssertEqual(Set(all.compactMap { $0["id"] as? Int }).count, 1, "each update replaces the first in place")
        XCTAssertEqual(all.last?["body"] as? String, "Task 0, Task 1, Task 2, Task 3, Task 4 and 300 more")
    }

    /// A Start and its Fail in one group commit reach the output when the store already
    /// says failed: the failure is one outcome, told alone, not a burst of two.
    func testAStartAndFailInOneGroupAreOneOutcome() throws {
        // Performed one after the other with no main loop turn between: one group.
        for round in 0..<5 { fail("quick\(round)", title: "Quick \(round)", app: "org.example.Q\(round)") }
        try settleService()
        clock.advance(seconds: 60)
        try settleService()
        XCTAssertEqual(summaries.sorted(), (0..<5).map { "Quick \($0)" }, "each failure told once, alone")
    }

    /// Each app's burst is its own; past eight apps at once they share one.
    func testBurstsArePerAppAndBoundedInNumber() throws {
        fail("a1", title: "Photos", app: "org.example.A")
        fail("b1", title: "Mail", app: "org.example.B")
        fail("a2", title: "Music", app: "org.example.A")
        try settleService()
        XCTAssertEqual(summaries.last, "2 tasks failed")
        XCTAssertEqual(notifies.last?["body"] as? String, "Photos, Music")
        XCTAssertEqual((notifies.last?["open"] as? [Int])?.count, 2, "one for A's burst, one for B")
        for index in 0..<20 { fail("app\(index)", title: "App \(index)", app: "org.example.Many\(index)") }
        try settleService()
        clock.advance(seconds: 60)
        try settleService()
        // A and B hold two of the eight; six more apps get their own, the other 14 one shared summary.
        XCTAssertEqual(summaries.last { $0.hasSuffix("tasks failed") }, "14 tasks failed")
        XCTAssertEqual(notifies.map { ($0["open"] as? [Int])?.count ?? 0 }.max(), 9, "8 apps and the shared burst")
        let shared = try XCTUnwrap(notifies.last { $0["summary"] as? String == "14 tasks failed" })
        XCTAssertNil((shared["hints"] as? [String: Any])?["desktop-entry"], "the shared burst names no app")
    }
}
