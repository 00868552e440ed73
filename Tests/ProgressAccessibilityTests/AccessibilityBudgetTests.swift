import Foundation
import ProgressBus
import ProgressClient
import ProgressModel
import ProgressPolicies
import ProgressTestSupport
import XCTest

/// Issue 22, case 7: the accessibility export paced announcements per task only and never
/// asked AnnouncementBudget, so 5,000 tasks starting and moving gave 10,000 AT-SPI
/// announcements against 6 broadcast Announcement signals. It speaks the broadcast's
/// budget now: one stream, at most one announcement a second, for both doors. The budget's
/// timing is AnnouncementPacingTests', in-process on a ManualTimerClock; here, that AT-SPI
/// hears exactly what the broadcast says, on a real progressd.
final class AccessibilityBudgetTests: AccessibilityTestCase {
    func testAnnouncementsOfManyTasksFromSeveralProcessesShareOneBudget() throws {
        var broadcast: [String] = []
        let hearer = try bus.connect()
        hearer.subscribe(interface: BusNames.managerInterface, member: "Announcement", path: BusNames.managerPath) {
            signal in
            broadcast.append(signal.arguments[1].string ?? "")
        }
        try hearer.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId")
        try start("first", [("title", .string("First"))])
        _ = try treeWith("first")
        // First's start was said before the listener came (the tree was read after it).
        XCTAssertTrue(BusConnection.pump(seconds: 20) { broadcast.count == 1 }, "First's start was said")
        let listener = try tool.listen(["object:announcement"])
        broadcast = []
        // Five processes (each is its own caller to the daemon, as five jobs would be), each
        // starting 199 tasks and moving them without waiting, then asking List: once it has
        // its answer, every one of its calls has been handled.
        let jobs = try (0..<5).map { index in
            try HelperProcess("/usr/bin/python3", ["-c", Self.job, String(index)], environment: bus.environment)
        }
        defer { jobs.forEach { $0.stop() } }
        for job in jobs { XCTAssertEqual(job.waitForExit(seconds: 60), 0, "\(job.lines)") }
        XCTAssertEqual(Set(jobs.map(\.pid)).count, 5)
        // What waited is said as a summary within the next interval (a second).
        XCTAssertTrue(
            BusConnection.pump(seconds: 30) { broadcast.contains { $0.contains("tasks") } }, "a summary: \(broadcast)")
        // Then one more task fails, which is said after all that came before it, at both
        // doors: once it is heard, nothing said before it is still on its way.
        try start("marker", [("title", .string("Marker"))])
        try manager("Fail", [.string("marker"), .string("marked")])
        XCTAssertTrue(
            BusConnection.pump(seconds: 30) { broadcast.contains { $0.contains("Marker") } },
            "the marker: \(broadcast)")
        let last = try XCTUnwrap(broadcast.last)
        XCTAssertTrue(last.contains("Marker"), "the marker is said last, alone: \(broadcast)")
        let heard = try listener.finish(data: last)
            .filter { ($0["type"] as? String)?.hasPrefix("object:announcement") == true }
        // Not one announcement for each of 995 tasks (10,000 before the fix), and not a
        // stream of its own: exactly what the broadcast said.
        XCTAssertEqual(heard.compactMap { $0["data"] as? String }, broadcast, "the same announcements at both doors")
    }

    /// A job of its own process (python3-dbus): 199 tasks started, then moved with calls that
    /// expect no reply (as SetFraction is meant to be sent; the bus allows 128 awaited at once).
    static let job = #"""
        import sys, dbus, dbus.lowlevel
        bus = dbus.SessionBus()
        destination, path, interface = "org.progressd.Progress1", "/org/progressd/Progress1", \#
        "org.progressd.Progress1.Manager"
        manager = dbus.Interface(bus.get_object(destination, path), interface)
        index = sys.argv[1]
        for task in range(199):
            manager.Start(f"p{index}-{task}", dbus.Dictionary({"title": f"Job {index} {task}"}, signature="sv"))
        for task in range(199):
            message = dbus.lowlevel.MethodCallMessage(destination, path, interface, "SetFraction")
            message.append(f"p{index}-{task}", 0.5, signature="sd")
            message.set_no_reply(True)
            bus.send_message(message)
        manager.List()
        print("done", flush=True)
        """#

    /// Case 6 for AT-SPI: a bar's name is the title with its override closed.
    func testABarsNameClosesTheTitlesOverride() throws {
        try start("rtl", [("title", .string("Backup \u{202E}fdp.exe"))])
        let name = try XCTUnwrap(treeWith("rtl").bar("rtl")?["name"] as? String)
        XCTAssertTrue(name.contains("\u{202E}"), name)
        XCTAssertFalse(ClientText.leavesOpen(name), name.debugDescription)
    }
}
