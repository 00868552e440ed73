import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// Texts in the caller's locale, announcements, and subscriptions, on the bus.
final class TextsBusTests: DaemonTestCase {
    func testDescribeAndSnapshotSpeakTheCallersLanguage() throws {
        try start("copy", [
            ("title", .string("Backup")), ("total", .uint64(10)), ("completed", .uint64(4)), ("unit", .string("files")),
        ])
        let german = try XCTUnwrap(manager("Describe", [.string("copy"), .string("de_DE.UTF-8")]).first)
        XCTAssertEqual(german["Label"], .string("40\u{A0}%"))
        XCTAssertEqual(german["Detail"], .string("4 von 10 Dateien"))
        XCTAssertEqual(german["AccessibleText"], .string("Backup: 40 Prozent"))
        XCTAssertEqual(german["Fraction"], .double(0.4))
        let daemons = try XCTUnwrap(manager("Describe", [.string("copy"), .string("")]).first)
        XCTAssertEqual(daemons["AccessibleText"], .string("Backup: 40 percent"))
        let russian = try XCTUnwrap(manager("Snapshot", [.string("ru-RU")]).first?["copy"])
        XCTAssertEqual(russian["AccessibleText"], .string("Backup: 40 процентов"))
        XCTAssertEqual(russian["Detail"], .string("4 из 10 файлов"))
        assertBusError("InvalidValue", "locale 'klingon' is not a locale") {
            try self.manager("Describe", [.string("copy"), .string("klingon")])
        }
        assertBusError("NoSuchTask", "'ghost'") { try self.manager("Describe", [.string("ghost"), .string("")]) }
    }

    func testTheBroadcastAnnouncesStartsAndOutcomes() throws {
        var heard: [[String]] = []
        listener.subscribe(interface: BusNames.managerInterface, member: "Announcement", path: BusNames.managerPath) {
            heard.append($0.arguments.compactMap(\.string))
        }
        try listener.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId")
        try start("copy", [("title", .string("Backup")), ("fraction", .double(0.1))])
        for step in 2...9 { try manager("SetFraction", [.string("copy"), .double(Double(step) / 10)]) }
        try manager("Fail", [.string("copy"), .string("disk full")])
        XCTAssertTrue(BusConnection.pump(seconds: 10) { heard.count == 2 })
        try settle()
        XCTAssertEqual(heard, [
            ["copy", "Backup: 10 percent", "polite"],
            ["copy", "Backup failed: disk full", "assertive"],
        ], "progress within 10 seconds of the start is not said")
    }

    /// Two subscribers on one task, each in its own locale and at its own pace, each
    /// receiving only what it asked for, and nothing of the other's.
    func testTwoSubscribersEachReceiveTheirOwn() throws {
        let reader = try bus.connect()
        let panel = try bus.connect()
        let readerPath = try XCTUnwrap(manager("Subscribe", [.vardict([
            ("locale", .string("fr_FR.UTF-8")), ("interval-seconds", .double(0.2)), ("min-percent-step", .uint32(25)),
            // Its own budget across tasks, faster than the default one a second.
            ("announcements-per-second", .double(10)),
        ])], on: reader).first?.string)
        let panelPath = try XCTUnwrap(manager("Subscribe", [.vardict([
            ("locale", .string("de_DE")), ("interval-seconds", .double(0.5)), ("announcements", .bool(false)),
            ("changes", .bool(true)), ("tasks", .array(elementType: "s", [.string("copy")])),
        ])], on: panel).first?.string)
        XCTAssertNotEqual(readerPath, panelPath)

        var readerHeard: [String] = []
        var panelChanges: [[String: BusValue]] = []
        var panelRemoved: [String] = []
        var leaked: [String] = []
        reader.subscribe(path: readerPath) {
            readerHeard.append(($0.arguments[1].string ?? "") + " / " + ($0.arguments[2].string ?? ""))
        }
        reader.subscribe(path: panelPath) { leaked.append("reader got \($0.member)") }
        panel.subscribe(path: panelPath) { signal in
            switch signal.member {
            case "Changed": panelChanges.append(signal.arguments[1].dictionary ?? [:])
            case "Removed": panelRemoved.append(signal.arguments[0].string ?? "")
            default: leaked.append("panel got \(signal.member)")
            }
        }
        panel.subscribe(path: readerPath) { leaked.append("panel got \($0.member) for the reader") }
        for connection in [reader, panel] {
            try connection.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId")
        }

        try start("copy", [("title", .string("Copie")), ("total", .uint64(100)), ("unit", .string("files"))])
        try start("other", [("title", .string("Autre"))])
        // The values move on as they are heard, not on a clock. The reader's policy says
        // progress only at an update its interval allows: at 30 and at 80 percent the update
        // is sent again (flipping by one file) until the reader has said it.
        let began = Date()
        func update(_ completed: Int) throws {
            try manager("Update", [.string("copy"), .vardict([("completed", .uint64(UInt64(completed)))])])
        }
        func progressSaid() -> Int { readerHeard.filter { $0.contains("pour cent") && !$0.hasPrefix("Autre") }.count }
        func nudge(_ completed: Int, until said: Int, file: StaticString = #filePath, line: UInt = #line) {
            var next = completed
            let reached = BusConnection.pump(seconds: 20) {
                if progressSaid() >= said { return true }
                try? update(next)
                next = next == completed ? completed + 1 : completed
                return progressSaid() >= said
            }
            XCTAssertTrue(
                reached, "the reader said progress at \(completed) files: \(readerHeard)", file: file, line: line)
        }
        try update(10)
        try update(20)
        nudge(30, until: 2)
        try update(40)
        try update(50)
        XCTAssertTrue(
            BusConnection.pump(seconds: 10) { panelChanges.contains { $0["Detail"] == .string("50 von 100 Dateien") } },
            "the panel got 50 files: \(panelChanges)")
        try update(60)
        try update(70)
        nudge(80, until: 3)
        try update(90)
        try update(100)
        try manager("Finish", [.string("copy")])
        try manager("Remove", [.string("copy")])
        XCTAssertTrue(BusConnection.pump(seconds: 10) {
            panelRemoved == ["copy"] && readerHeard.contains { $0.hasPrefix("Copie terminé") }
        })
        for connection in [reader, panel] { try settle(connection) }

        XCTAssertEqual(leaked, [], "subscriptions are unicast")
        // The reader: French, started for both tasks, progress only in steps of 25 points, the outcome.
        XCTAssertEqual(readerHeard.first, "Copie\u{A0}: 0 pour cent / polite")
        XCTAssertTrue(readerHeard.contains("Autre\u{A0}: 0 pour cent / polite"))
        let progress = readerHeard.filter { $0.contains("pour cent") && !$0.hasPrefix("Autre") }.dropFirst()
        XCTAssertGreaterThanOrEqual(progress.count, 2)
        XCTAssertLessThanOrEqual(progress.count, 4, "\(readerHeard)")
        XCTAssertEqual(readerHeard.last, "Copie terminé / polite")
        // The panel: German changes for "copy" only, coalesced to its half-second pace.
        XCTAssertEqual(panelChanges.first?["Name"], .string("copy"), "a new task comes with every property")
        XCTAssertEqual(panelChanges.first?["AccessibleText"], .string("Copie: 0 Prozent"))
        XCTAssertTrue(panelChanges.contains {
            $0["Detail"] == .string("50 von 100 Dateien") || $0["Detail"] == .string("40 von 100 Dateien")
                || $0["Detail"] == .string("60 von 100 Dateien")
        })
        // One a half second at most while the values moved, and the start and the finish.
        let moving = Date().timeIntervalSince(began)
        XCTAssertLessThanOrEqual(
            Double(panelChanges.count), moving / 0.5 + 3, "\(panelChanges.count) changes in \(moving) s")
        XCTAssertEqual(panelChanges.last?["State"], .string("finished"))
        XCTAssertEqual(panelChanges.last?["AccessibleText"], .string("Copie abgeschlossen"))
        XCTAssertFalse(panelChanges.contains { $0["Name"] == .string("other") })
    }

    func testSubscriptionsBelongToTheirConnection() throws {
        var other: BusConnection? = try bus.connect()
        let path = try XCTUnwrap(manager("Subscribe", [.vardict([])], on: other).first?.string)
        assertBusError("NotAllowed", "belongs to another connection") {
            try self.manager("Unsubscribe", [.objectPath(path)])
        }
        other = nil  // the subscriber leaves: its subscription ends
        XCTAssertTrue(BusConnection.pump(seconds: 10) {
            (try? self.manager("Unsubscribe", [.objectPath(path)])) == nil
                && ((try? self.client.call(BusNames.busName, path, "org.freedesktop.DBus.Introspectable", "Introspect")
                    .first?.string?.contains(BusNames.subscriptionInterface)) ?? false) == false
        })
        assertBusError("InvalidValue", "there is no subscription at '\(path)'") {
            try self.manager("Unsubscribe", [.objectPath(path)])
        }
        let mine = try XCTUnwrap(manager("Subscribe", [.vardict([])]).first?.string)
        try manager("Unsubscribe", [.objectPath(mine)])
        for _ in 1...16 { try manager("Subscribe", [.vardict([])]) }
        assertBusError("LimitExceeded", "the limit per process (a sandboxed app is one) is 16") {
            try self.manager("Subscribe", [.vardict([])])
        }
        assertBusError("UnknownOption", "'colour'") {
            try self.manager("Subscribe", [.vardict([("colour", .string("red"))])])
        }
        assertBusError("InvalidValue", "locale 'xx' is not a locale") {
            try self.manager("Subscribe", [.vardict([("locale", .string("xx"))])])
        }
    }
}

/// The daemon's own locale comes from the environment.
final class DaemonLocaleTests: DaemonTestCase {
    override var daemonEnvironment: [String: String] { ["LC_ALL": "", "LC_NUMERIC": "", "LANG": "fr_FR.UTF-8"] }

    func testTheDaemonSpeaksTheLanguageOfItsEnvironment() throws {
        try start("copy", [("title", .string("Copie")), ("fraction", .double(0.42))])
        XCTAssertEqual(try property("copy", "Label"), .string("42\u{A0}%"))
        XCTAssertEqual(try property("copy", "AccessibleText"), .string("Copie\u{A0}: 42 pour cent"))
    }
}
