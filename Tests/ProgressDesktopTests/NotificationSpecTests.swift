import Foundation
import ProgressBus
import ProgressClient
import ProgressModel
import ProgressTestSupport
import XCTest

/// progressd's notifications against a server written from the Desktop Notifications
/// Specification (helpers/notification-server.py), which prints every Notify with the
/// notifications open after it. The server starts before progressd, as a desktop's does.
class NotificationSpecTestCase: DaemonTestCase {
    var server: HelperProcess!
    var capabilities: String { "body,body-markup,actions,persistence" }
    /// Seconds the server takes to answer GetCapabilities.
    var capabilitiesDelay: Double { 0 }
    override var daemonArguments: [String] { ["--notify-after", "0"] }

    static let helpersDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("helpers")

    override func prepareBus() throws {
        server = try HelperProcess(
            "/usr/bin/python3",
            [Self.helpersDirectory.appendingPathComponent("notification-server.py").path, capabilities,
             "\(capabilitiesDelay)"],
            environment: bus.environment, readsCommands: true)
        helpers.append(server)
        XCTAssertNotNil(server.waitForLine { $0.contains("\"ready\"") }, "the server started")
    }

    override func setUpWithError() throws {
        try super.setUpWithError()
        // progressd asks the server what it can do as soon as it sees it.
        XCTAssertTrue(BusConnection.pump(seconds: 10) { !self.events("capabilities").isEmpty })
    }

    func events(_ kind: String) -> [[String: Any]] {
        server.lines.compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                return nil
            }
            return object["event"] as? String == kind ? object : nil
        }
    }

    var notifies: [[String: Any]] { events("notify") }

    func fail(_ name: String, title: String, app: String, message: String) throws {
        try manager("Start", [.string(name), .vardict([("title", .string(title)), ("app-id", .string(app))])])
        try manager("Fail", [.string(name), .string(message)])
    }

    /// Pumps until the newest Notify satisfies `condition`.
    @discardableResult
    func waitForNotify(seconds: Double = 10, where condition: @escaping ([String: Any]) -> Bool) -> [String: Any]? {
        var found: [String: Any]?
        _ = BusConnection.pump(seconds: seconds) {
            found = self.notifies.last(where: condition)
            return found != nil
        }
        return found
    }
}

/// Issue 22, cases 4, 5 and 6 with a server that reads markup in bodies (the timed rules of
/// case 4 are NotificationPacingTests', in-process on a ManualTimerClock).
final class NotificationSpecTests: NotificationSpecTestCase {
    /// Case 4: 300 failures within a moment gave 300 critical notifications. The burst's
    /// pacing (at most once a second, nothing after the whole count) is timed on a
    /// ManualTimerClock in NotificationPacingTests; here, progressd's texts and hints.
    func testABurstOfFailuresIsOneNotificationThatCountsAndNamesThem() throws {
        for index in 0..<300 {
            try fail("t\(index)", title: "Task \(index)", app: "org.example.Backup", message: "broken")
        }
        let last = try XCTUnwrap(
            waitForNotify { $0["summary"] as? String == "300 tasks failed" }, "\(notifies.suffix(3))")
        let all = notifies
        XCTAssertEqual(
            all.map { ($0["open"] as? [Int])?.count ?? 0 }.max(), 1, "one notification on screen at any time")
        XCTAssertEqual(all.first?["summary"] as? String, "Task 0", "the first outcome is told at once, alone")
        XCTAssertEqual(all.last?["summary"] as? String, "300 tasks failed")
        XCTAssertEqual(all.last?["body"] as? String, "Task 0, Task 1, Task 2, Task 3, Task 4 and 295 more")
        XCTAssertEqual(all.last?["id"] as? Int, all.first?["id"] as? Int, "updated in place (replaces_id)")
        let hints = try XCTUnwrap(last["hints"] as? [String: Any])
        XCTAssertEqual(hints["urgency"] as? Int, 2)
        XCTAssertEqual(hints["desktop-entry"] as? String, "org.example.Backup")
        // Nothing is dropped: every failure is still a task.
        let snapshot = try XCTUnwrap(manager("Snapshot", [.string("")]).first?.dictionary)
        XCTAssertEqual(snapshot.values.filter { $0.dictionary?["State"]?.string == "failed" }.count, 300)
    }

    /// Case 5: a failure message full of markup went into the body as it was.
    func testClientMarkupIsEscapedInTheBody() throws {
        let hostile = "<a href=\"http://example.invalid/\">click</a> <b>bold</b> & <img src=\"file:///etc/passwd\"/>"
        try fail("m", title: "Mark <b>up</b> & co", app: "org.example.M", message: hostile)
        let note = try XCTUnwrap(waitForNotify { _ in true })
        XCTAssertEqual(
            note["body"] as? String,
            "&lt;a href=\"http://example.invalid/\"&gt;click&lt;/a&gt; &lt;b&gt;bold&lt;/b&gt; &amp; "
                + "&lt;img src=\"file:///etc/passwd\"/&gt;")
        XCTAssertEqual(
            note["summary"] as? String, "Mark <b>up</b> & co", "the summary is plain text by the specification")
    }

    /// Case 6: a right-to-left override from Progress1 and from a KDE job reaches the
    /// notification closed, inside its isolate.
    func testOverridesAreClosedInNotifications() throws {
        try fail("rtl", title: "Backup \u{202E}fdp.exe", app: "org.example.R", message: "disk \u{202E}full")
        let note = try XCTUnwrap(waitForNotify { _ in true })
        XCTAssertEqual(note["summary"] as? String, "\u{2068}Backup \u{202E}fdp.exe\u{202C}\u{2069}")
        XCTAssertEqual(note["body"] as? String, "\u{2068}disk \u{202E}full\u{202C}\u{2069}")

        let app = try bus.connect()
        let daemonName = try XCTUnwrap(client.call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner",
            [.string(BusNames.busName)]).first?.string)
        let path = try XCTUnwrap(app.call(daemonName, "/JobViewServer", "org.kde.JobViewServerV2", "requestView",
                                          [.string("org.kde.dolphin"), .int32(3),
                                           .vardict([("title", .string("Copy \u{202E}3gp.exe"))])]).first?.string)
        app.send(
            daemonName, path, "org.kde.JobViewV3", "update", [.vardict([("infoMessage", .string("to \u{202E}usb"))])])
        app.send(
            daemonName, path, "org.kde.JobViewV3", "terminate",
            [.uint32(114), .string("no \u{202E}space"), .vardict([])])
        let kde = try XCTUnwrap(
            waitForNotify { ($0["hints"] as? [String: Any])?["desktop-entry"] as? String == "org.kde.dolphin" })
        for field in ["summary", "body"] {
            let text = try XCTUnwrap(kde[field] as? String)
            XCTAssertTrue(text.contains("\u{202E}"), text)
            XCTAssertFalse(ClientText.leavesOpen(text), "\(field) leaves the override open: \(text.debugDescription)")
        }
    }
}

/// A server without body-markup: bodies go as they are, since it shows them as text.
final class NotificationPlainServerTests: NotificationSpecTestCase {
    override var capabilities: String { "body" }

    func testBodiesAreNotEscapedForAServerWithoutMarkup() throws {
        try fail("m", title: "Plain", app: "org.example.M", message: "a < b & c")
        let note = try XCTUnwrap(waitForNotify { _ in true })
        XCTAssertEqual(note["body"] as? String, "a < b & c")
    }
}

/// A server slow to say what it can do: a notification made meanwhile waits for the answer,
/// so a server without body-markup gets its body unescaped from the first.
final class NotificationSlowCapabilitiesTests: NotificationSpecTestCase {
    override var capabilities: String { "body" }
    override var capabilitiesDelay: Double { 1 }

    func testANotificationMadeBeforeTheAnswerWaitsForIt() throws {
        try fail("m", title: "Plain", app: "org.example.M", message: "a < b & c")
        let note = try XCTUnwrap(waitForNotify { _ in true })
        XCTAssertEqual(note["body"] as? String, "a < b & c")
    }
}
