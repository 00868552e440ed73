import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// A dock bar's task across a restart of progressd (SIGKILL): its sender's entry is made
/// again, so the sender's next Update moves the same task and its departure fails it; a
/// sender that left while progressd was down fails its task as soon as progressd is back.
final class LauncherEntryRestartTests: LauncherEntryTestCase {
    let uri = "application://org.example.Backup.desktop"
    let task = "launcher/org.example.Backup"

    func testABarStaysBoundToItsSenderAcrossARestart() throws {
        var app: BusConnection? = try bus.connect()
        try update(app!, uri, [("progress", .double(0.4)), ("progress-visible", .bool(true))])
        try waitForTasks { $0[self.task] != nil }
        try start("barrier")  // its reply comes after the group holding the bar's Start is on disk

        try restartDaemon(killing: true)
        var tasks = try waitForTasks { $0[self.task] != nil }
        XCTAssertEqual(tasks[task]?["State"]?.string, "running", "its sender is still there")
        try update(app!, uri, [("progress", .double(0.7))])
        tasks = try waitForTasks { $0[self.task]?["Fraction"]?.double == 0.7 }
        XCTAssertNil(tasks[task + "#2"], "the same bar, not a second one")

        app = nil
        tasks = try waitForTasks { $0[self.task]?["State"]?.string == "failed" }
        XCTAssertEqual(tasks[task]?["State"]?.string, "failed")
        XCTAssertEqual(tasks[task]?["Message"]?.string, "the application closed")
    }

    func testASenderThatLeftWhileTheDaemonWasDownFailsItsBarAtTheRestart() throws {
        var app: BusConnection? = try bus.connect()
        try update(app!, uri, [("progress", .double(0.4)), ("progress-visible", .bool(true))])
        try waitForTasks { $0[self.task] != nil }
        try start("barrier")
        daemon.kill()
        app = nil
        try startDaemon()
        let tasks = try waitForTasks { $0[self.task]?["State"]?.string == "failed" }
        XCTAssertEqual(tasks[task]?["State"]?.string, "failed", "a crash never looks like success")
        XCTAssertEqual(tasks[task]?["Message"]?.string, "the application closed")
    }
}
