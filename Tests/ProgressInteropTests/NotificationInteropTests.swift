import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// dunst under Xvfb on the test's bus before progressd starts; notifications are read back
/// with `dunstctl history` and driven with `dunstctl action`.
class NotificationTestCase: InteropTestCase {
    var dunst: DunstServer!

    override func setUpBeforeDaemon() throws {
        let connection = try bus.connect()
        dunst = try DunstServer(environment: environment, scratch: scratch, bus: connection)
    }

    override func tearDown() {
        super.tearDown()
        dunst?.stop()
        dunst = nil
    }

    func waitForDisplayed(_ count: Int, seconds: Double = 10) -> Bool {
        BusConnection.pump(seconds: seconds) { dunst.displayedCount >= count }
    }

    func failureGivesCriticalNotificationWithItsMessage() throws {
        _ = try manager("Start", [.string("backup"), .vardict([("title", .string("Backing up photos")),
                                                               ("app-id", .string("org.example.Backup"))])])
        _ = try manager("Fail", [.string("backup"), .string("the disk is full")])
        XCTAssertTrue(waitForDisplayed(1), dunst.log)
        // Another app's failure, notified alone after all that came before it: once it is
        // shown, a second notification of the backup would be too.
        _ = try manager(
            "Start",
            [.string("marker"), .vardict([("title", .string("Marker")), ("app-id", .string("org.example.Marker"))])])
        _ = try manager("Fail", [.string("marker"), .string("marked")])
        XCTAssertTrue(waitForDisplayed(2), dunst.log)
        let history = try dunst.closeAllAndReadHistory()
        XCTAssertEqual(history.compactMap { $0["summary"] as? String }.sorted(), ["Backing up photos", "Marker"],
                       "one notification, the outcome, and the marker's: \(history)")
        let backup = history.first { $0["summary"] as? String == "Backing up photos" }
        XCTAssertEqual(backup?["body"] as? String, "the disk is full")
        XCTAssertEqual(backup?["appname"] as? String, "progressd")
        XCTAssertTrue((backup?["message"] as? String)?.hasPrefix("critical: ") == true, "urgency critical: \(history)")
    }
}

/// The default mode, `outcomes`, with `--notify-after 1`.
final class NotificationInteropTests: NotificationTestCase {
    override var daemonArguments: [String] { ["--notify-after", "1"] }

    func testFailureGivesCriticalNotificationWithItsMessage() throws {
        try failureGivesCriticalNotificationWithItsMessage()
    }

    func testLongFinishIsNotifiedAndShortIsNot() throws {
        _ = try manager("Start", [.string("short"), .vardict([("title", .string("Quick one"))])])
        _ = try manager("Finish", [.string("short")])
        _ = try manager("Start", [.string("long"), .vardict([("title", .string("Long one"))])])
        pause(1.3)  // past --notify-after 1
        _ = try manager("Finish", [.string("long")])
        // The short one ended first: a notification of it would be shown before this one.
        XCTAssertTrue(waitForDisplayed(1), dunst.log)
        let history = try dunst.closeAllAndReadHistory()
        XCTAssertEqual(history.compactMap { $0["summary"] as? String }, ["Long one"], "the short one gives none")
        XCTAssertFalse((history.first?["message"] as? String)?.hasPrefix("critical") == true)
    }

    func testCancelledGivesNone() throws {
        _ = try manager(
            "Start", [.string("c"), .vardict([("title", .string("Given up")), ("cancellable", .bool(true))])])
        pause(1.2)
        _ = try manager("Update", [.string("c"), .vardict([("state", .string("cancelled"))])])
        _ = try manager("Start", [.string("f"), .vardict([("title", .string("Marker"))])])
        _ = try manager("Fail", [.string("f"), .string("marker")])
        XCTAssertTrue(waitForDisplayed(1), dunst.log)  // after any of the cancelled task's
        XCTAssertEqual(try dunst.closeAllAndReadHistory().compactMap { $0["summary"] as? String }, ["Marker"])
    }
}

/// Issue 22, cases 4 and 5 with dunst, which advertises body-markup.
final class NotificationBurstInteropTests: NotificationTestCase {
    override var daemonArguments: [String] { ["--notify-after", "0"] }

    func testABurstIsOneNotificationAndMarkupIsShownAsText() throws {
        for index in 0..<30 {
            _ = try manager("Start", [.string("t\(index)"), .vardict([("title", .string("Task \(index)")),
                                                                     ("app-id", .string("org.example.Backup"))])])
            _ = try manager("Fail", [.string("t\(index)"), .string("broken")])
        }
        XCTAssertTrue(waitForDisplayed(1), dunst.log)
        pause(2.5)  // the summary's last update, at most a second after the first
        XCTAssertEqual(dunst.displayedCount, 1, "one notification for the burst, updated in place")
        let history = try dunst.closeAllAndReadHistory()
        XCTAssertEqual(history.first?["summary"] as? String, "30 tasks failed", "\(history)")
        XCTAssertEqual(history.first?["body"] as? String, "Task 0, Task 1, Task 2, Task 3, Task 4 and 25 more")
        XCTAssertTrue((history.first?["message"] as? String)?.hasPrefix("critical: ") == true, "\(history)")

        pause(5.5)  // the burst's window ends
        _ = try manager(
            "Start", [.string("m"), .vardict([("title", .string("Markup")), ("app-id", .string("org.example.M"))])])
        _ = try manager("Fail", [
            .string("m"),
            .string("<a href=\"http://example.invalid/\">click</a> <b>bold</b> & <img src=\"file:///etc/passwd\"/>"),
        ])
        XCTAssertTrue(waitForDisplayed(1), dunst.log)
        pause(0.3)
        let marked = try dunst.closeAllAndReadHistory().first
        XCTAssertEqual(marked?["summary"] as? String, "Markup")
        // dunst (markup full) renders the entities as the client's literal text: no link, no image, no bold.
        XCTAssertEqual(marked?["body"] as? String,
                       "&lt;a href=\"http://example.invalid/\"&gt;click&lt;/a&gt; &lt;b&gt;bold&lt;/b&gt; &amp; "
                           + "&lt;img src=\"file:///etc/passwd\"/&gt;")
    }
}

/// `--notifications progress`: one notification per running task, updated in place.
final class NotificationProgressInteropTests: NotificationTestCase {
    override var daemonArguments: [String] { ["--notifications", "progress"] }

    /// The failure replaces the task's progress notification: still one, and critical.
    func testFailureReplacesTheProgressNotification() throws {
        try failureGivesCriticalNotificationWithItsMessage()
    }

    func testProgressShowsValueHintAndEndsReplacedByTheOutcome() throws {
        _ = try manager(
            "Start", [.string("copy"), .vardict([("title", .string("Copying")), ("fraction", .double(0.1))])])
        XCTAssertTrue(waitForDisplayed(1), dunst.log)
        for step in 2...30 {
            _ = try manager("SetFraction", [.string("copy"), .double(0.1 + Double(step) * 0.015)])
            pause(0.05)
        }
        pause(1.2)  // the once-a-second update carries the last value
        XCTAssertEqual(dunst.displayedCount, 1, "updated in place, not stacked")
        var history = try dunst.closeAllAndReadHistory()
        XCTAssertEqual(history.first?["summary"] as? String, "Copying")
        XCTAssertEqual(history.first?["progress"] as? Int, 55, "the value hint, int32 0-100: \(history)")
        XCTAssertEqual(history.count, 1, "the replaced versions are not kept: \(history)")
        // The notification was closed, so the next update starts a new one; the outcome replaces that.
        _ = try manager("SetFraction", [.string("copy"), .double(0.8)])
        XCTAssertTrue(BusConnection.pump(seconds: 5) { dunst.displayedCount == 1 })
        pause(0.2)
        _ = try manager("Finish", [.string("copy")])
        pause(1.5)
        XCTAssertEqual(dunst.displayedCount, 1, "the outcome replaced the progress notification")
        history = try dunst.closeAllAndReadHistory()
        XCTAssertEqual(history.count, 2, "\(history)")
        XCTAssertEqual(history.first?["summary"] as? String, "Copying")
        XCTAssertEqual(history.first?["progress"] as? Int, -1, "an outcome has no value hint")
        XCTAssertTrue((history.first?["body"] as? String)?.contains("finished") == true, "\(history)")
    }

    func testCancelActionReachesTheJobAsACancelRequest() throws {
        let job = try bus.connect()
        var requested = 0
        job.subscribe(interface: BusNames.taskInterface, member: "CancelRequested") { _ in requested += 1 }
        _ = try manager("Start", [.string("sync"), .vardict([("title", .string("Syncing")),
                                                             ("cancellable", .bool(true)),
                                                             ("fraction", .double(0.2))])], on: job)
        XCTAssertTrue(waitForDisplayed(1), dunst.log)
        pause(0.3)
        // One action besides the default: dunst invokes it without a menu.
        try dunst.dunstctl("action", "0")
        XCTAssertTrue(BusConnection.pump(seconds: 5) { requested == 1 }, "CancelRequested reached the job")
        XCTAssertEqual(try snapshot()["sync"]?["CancelRequested"]?.bool, true)
    }
}

/// A server that appears after progressd: only outcomes from then on are notified.
final class NotificationLateServerInteropTests: NotificationTestCase {
    override func setUpBeforeDaemon() throws {}

    func testOnlyOutcomesAfterTheServerAppearsAreNotified() throws {
        _ = try manager("Start", [.string("early"), .vardict([("title", .string("Before the server"))])])
        _ = try manager("Fail", [.string("early"), .string("nobody saw this")])
        pause(0.2)
        dunst = try DunstServer(environment: environment, scratch: scratch, bus: try bus.connect())
        pause(0.5)  // progressd's name watch sees the server
        XCTAssertEqual(dunst.displayedCount, 0, "nothing was queued for a server")
        _ = try manager("Start", [.string("late"), .vardict([("title", .string("After the server"))])])
        _ = try manager("Fail", [.string("late"), .string("seen")])
        XCTAssertTrue(waitForDisplayed(1), dunst.log)
        pause(0.3)
        XCTAssertEqual(try dunst.closeAllAndReadHistory().compactMap { $0["summary"] as? String }, ["After the server"])
    }
}
