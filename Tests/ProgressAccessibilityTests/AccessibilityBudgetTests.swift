import Foundation
import ProgressBus
import ProgressClient
import ProgressCore
import ProgressTestSupport
import XCTest

/// Issue 22, case 7: the accessibility export paced announcements per task only and never
/// asked AnnouncementBudget, so 5,000 tasks starting and moving gave 10,000 AT-SPI
/// announcements against 6 broadcast Announcement signals. It speaks the broadcast's
/// budget now: one stream, at most one announcement a second, for both doors.
final class AccessibilityBudgetTests: AccessibilityTestCase {
    func testAnnouncementsOfManyTasksFromSeveralProcessesShareOneBudget() throws {
        var broadcast = 0
        let hearer = try bus.connect()
        hearer.subscribe(interface: BusNames.managerInterface, member: "Announcement", path: BusNames.managerPath) { _ in broadcast += 1 }
        try hearer.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId")
        try start("first", [("title", .string("First"))])
        _ = try treeWith("first")
        let listener = try tool.listen(["object:announcement"])
        BusConnection.pump(seconds: 1.2) { false }
        broadcast = 0  // First's start was said before the listener came
        let began = Date()
        let clients = try (0..<5).map { _ in try bus.connect() }
        for (index, connection) in clients.enumerated() {
            for task in 0..<199 {
                try connection.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Start",
                                    [.string("p\(index)-\(task)"), .vardict([("title", .string("Job \(index) \(task)"))])])
            }
        }
        for (index, connection) in clients.enumerated() {
            for task in 0..<199 {
                connection.send(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "SetFraction",
                                [.string("p\(index)-\(task)"), .double(0.5)])
            }
            try connection.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "List")
        }
        // What waited is said within the next interval; then the stream is quiet.
        BusConnection.pump(seconds: 2.5) { false }
        let elapsed = Date().timeIntervalSince(began)
        let heard = try listener.finish().filter { ($0["type"] as? String)?.hasPrefix("object:announcement") == true }
        XCTAssertGreaterThan(heard.count, 0, "the starts were announced")
        XCTAssertLessThanOrEqual(Double(heard.count), elapsed + 2, "\(heard.count) AT-SPI announcements in \(elapsed) s for 995 tasks")
        XCTAssertEqual(heard.count, broadcast, "the same announcements at both doors")
        let summary = try XCTUnwrap(heard.last?["data"] as? String)
        XCTAssertTrue(summary.contains("tasks"), "a summary of what waited: \(summary)")
    }

    /// Case 6 for AT-SPI: a bar's name is the title with its override closed.
    func testABarsNameClosesTheTitlesOverride() throws {
        try start("rtl", [("title", .string("Backup \u{202E}fdp.exe"))])
        let name = try XCTUnwrap(treeWith("rtl").bar("rtl")?["name"] as? String)
        XCTAssertTrue(name.contains("\u{202E}"), name)
        XCTAssertFalse(ClientText.leavesOpen(name), name.debugDescription)
    }
}
