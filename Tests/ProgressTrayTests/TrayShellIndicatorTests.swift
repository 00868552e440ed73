import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// One icon, not two: while progressd's GNOME Shell extension runs, it owns
/// org.progressd.ShellIndicator and shows the tasks in the top bar itself, so the tray item
/// (which the AppIndicator extension would show beside it) steps aside. Here a plain
/// connection stands in for the shell: owning the name is all the extension does toward it.
final class TrayShellIndicatorTests: TrayTestCase {
    static let shellIndicatorName = "org.progressd.ShellIndicator"

    /// A connection that owns the name, as the extension's shell does.
    func claimShellIndicator() throws -> BusConnection {
        let shell = try bus.connect()
        // RequestName flag 4: DO_NOT_QUEUE; reply 1: PRIMARY_OWNER.
        let reply = try shell.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                   "RequestName", [.string(Self.shellIndicatorName), .uint32(4)])
        XCTAssertEqual(reply.first, .uint32(1))
        return shell
    }

    func testTheItemStepsAsideWhileTheExtensionRunsAndComesBackWhenItLeaves() throws {
        let watcher = try watcher()
        try start("copy", [("title", .string("Copying photos")), ("fraction", .double(0.3))])
        XCTAssertEqual(event(watcher, "register")?["service"] as? String, itemName)

        try withExtendedLifetime(try claimShellIndicator()) {
            XCTAssertTrue(
                BusConnection.pump(seconds: 10) { self.nameOwner(self.itemName) == nil }, "one icon: the shell's")
            try manager("SetFraction", [.string("copy"), .double(0.4)])
        }
        // The shell's connection closed (the extension disabled, or the shell restarting).
        XCTAssertEqual(event(watcher, "register", count: 2)?["service"] as? String, itemName)
        XCTAssertEqual(
            try itemProperty("Title").string, "1 task, 40 percent overall", "the value set while the shell showed it")
    }
}

/// The extension already runs when progressd starts (the session's shell came first), and a
/// task restored from progressd's state is there at once.
final class TrayShellIndicatorAtStartTests: TrayTestCase {
    override var startsDaemonAtSetUp: Bool { false }

    func testNoItemWhenProgressdStartsWhileTheExtensionRuns() throws {
        try startDaemon()
        try start("copy", [("fraction", .double(0.5)), ("lifetime", .string("persistent"))])
        XCTAssertEqual(daemon.stop(), 0)

        let shell = try bus.connect()
        XCTAssertEqual(
            try shell.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "RequestName",
                           [.string(TrayShellIndicatorTests.shellIndicatorName), .uint32(4)]).first,
            .uint32(1))
        let watcher = try watcher()
        // progressd asks who owns both names before it asks for its own (the extension's
        // first), so it has the answers, and has asked for the item's name if it were to
        // show one for the restored task, before any call to it can arrive.
        try startDaemon()
        try manager("List")
        XCTAssertNil(nameOwner(itemName))

        let release = try shell.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                     "ReleaseName", [.string(TrayShellIndicatorTests.shellIndicatorName)])
        XCTAssertEqual(release.first, .uint32(1), "released")
        XCTAssertEqual(event(watcher, "register")?["service"] as? String, itemName)
        XCTAssertEqual(try itemProperty("Title").string, "1 task, 50 percent overall")
        XCTAssertEqual(events(watcher, "register").count, 1)
    }
}
