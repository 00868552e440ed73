import CGLib
import Foundation
import ProgressBus
import ProgressClient
import ProgressModel
import ProgressPolicies
@testable import ProgressDaemon
import ProgressTestSupport
import XCTest

/// The daemon's one announcement budget, in-process on the test's time: a ProgressService
/// on a ManualTimerClock, so AnnouncementOutput's timer runs when `clock.advance` reaches
/// its deadline and each announcement is seen at the exact time it is said. Both doors are
/// heard: the broadcast Announcement signal on the bus, and `onAnnouncement` (what the
/// AT-SPI export speaks; AccessibilityBudgetTests proves that wiring on a real progressd).
final class AnnouncementPacingTests: DaemonTestCase {
    /// The service runs in this process: the fixture gives the bus, no progressd.
    override var startsDaemonAtSetUp: Bool { false }
    struct PlainTexts: TaskDescribing {
        func label(wholePercent: Int) -> String { "\(wholePercent) %" }
        func detail(of task: ProgressTask) -> String { "" }
        func accessibleText(of task: ProgressTask) -> String { task.title }
        func summary(_ summary: AnnouncementSummary) -> String { "\(summary.moving) tasks" }
        func burst(_ burst: NotificationBurst) -> (title: String, body: String) { ("", "") }
    }

    private let clock = ManualTimerClock()
    private var service: ProgressService!
    private var connection: OpaquePointer!
    private var hearer: BusConnection!
    /// What the budget let through, with the time it was said.
    private var said: [(micros: Int64, spoken: AnnouncementBudget.Spoken)] = []
    private var broadcast = 0

    override func setUpWithError() throws {
        try super.setUpWithError()
        var error: UnsafeMutablePointer<GError>?
        let flags = GDBusConnectionFlags(
            rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        // Kept for the process's life (as in OnePathTests): GDBus may still hold it.
        connection = try XCTUnwrap(g_dbus_connection_new_for_address_sync(bus.address, flags, nil, nil, &error))
        g_dbus_connection_set_exit_on_close(connection, 0)
        let configuration = ServiceConfiguration(
            limits: Limits(), version: "test", texts: PlainTexts(), textsForLocale: { _ in PlainTexts() })
        service = try ProgressService(
            connection: connection, configuration: configuration, clock: MainLoopClock(runningTimersOn: clock))
        service.context.onAnnouncement { [unowned self] spoken in said.append((clock.monotonicMicros, spoken)) }
        try service.register()
        hearer = try bus.connect()
        hearer.subscribe(
            interface: BusNames.managerInterface, member: "Announcement",
            path: BusNames.managerPath) { [unowned self] _ in
            broadcast += 1
        }
        try hearer.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId")
    }

    override func tearDown() {
        service?.unregister()
        service = nil
        hearer = nil
        super.tearDown()
    }

    /// Commits what was performed (an idle source), then returns once the hearer has every
    /// signal the service sent before: a Ping of the service's connection is answered after them.
    private func settleService() throws {
        BusConnection.drain()
        let unique = String(cString: g_dbus_connection_get_unique_name(connection))
        try hearer.call(unique, "/", "org.freedesktop.DBus.Peer", "Ping")
        BusConnection.drain()
    }

    /// Issue 22, case 7: 995 tasks of five processes starting and moving at once. The first
    /// is said at once; the rest wait and are said as one summary when the interval is over,
    /// not before; then nothing; the same at both doors.
    func testManyTasksFromSeveralProcessesShareOneBudget() throws {
        let interval = service.context.limits.announcementIntervalMicros
        let began = clock.monotonicMicros
        for process in 0..<5 {
            let origin = ChangeOrigin.client(ClientID(":1.\(9000 + process)"))
            for index in 0..<199 {
                var update = TaskUpdate()
                update.title = "Job \(process) \(index)"
                XCTAssertNil(service.context.perform(.start(try TaskName("p\(process)-\(index)"), update), by: origin))
            }
        }
        try settleService()
        for process in 0..<5 {
            let origin = ChangeOrigin.client(ClientID(":1.\(9000 + process)"))
            for index in 0..<199 {
                XCTAssertNil(
                    service.context.perform(.setFraction(try TaskName("p\(process)-\(index)"), 0.5), by: origin))
            }
        }
        try settleService()
        XCTAssertEqual(said.count, 1, "the first is said at once, the rest wait")
        clock.advance(micros: interval - 1)
        try settleService()
        XCTAssertEqual(said.count, 1, "nothing more within the interval")
        clock.advance(micros: 1)
        try settleService()
        XCTAssertEqual(said.count, 2, "what waited is said when the interval is over")
        guard case .summary(let summary)? = said.last?.spoken else {
            return XCTFail("a summary of what waited: \(said)")
        }
        XCTAssertGreaterThan(summary.moving, 900, "the summary counts the tasks that waited")
        // Short of the stall time (30 s without a move), when there would be news again.
        clock.advance(seconds: 20)
        try settleService()
        let times = said.map { $0.micros - began }
        XCTAssertEqual(times, [0, interval], "then the stream is quiet")
        XCTAssertEqual(broadcast, said.count, "the same announcements at both doors")
    }
}
