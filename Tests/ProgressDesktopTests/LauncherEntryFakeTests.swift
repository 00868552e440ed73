import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// LauncherEntry in and out against fake clients written from libunity's interface (no
/// libunity needed; `make interop` runs the real one).
final class LauncherEntryFakeTests: LauncherEntryTestCase {
    // MARK: In

    func testUpdateBecomesTaskWithTitleAppIdFractionAndFinishes() throws {
        let app = try bus.connect()
        try update(app, "application://org.example.Backup.desktop", [("progress", .double(0.25))])
        try update(app, "application://org.example.Backup.desktop", [("progress-visible", .bool(true))])
        var tasks = try waitForTasks { $0["launcher/org.example.Backup"]?["Fraction"]?.double == 0.25 }
        let task = try XCTUnwrap(tasks["launcher/org.example.Backup"])
        XCTAssertEqual(task["Title"]?.string, "Photo Backup", "the desktop file's Name")
        XCTAssertEqual(task["AppId"]?.string, "org.example.Backup")
        XCTAssertEqual(task["State"]?.string, "running")
        try update(app, "application://org.example.Backup.desktop", [("progress", .double(1))])
        try update(app, "application://org.example.Backup.desktop", [("progress-visible", .bool(false))])
        tasks = try waitForTasks { $0["launcher/org.example.Backup"]?["State"]?.string == "finished" }
        XCTAssertEqual(tasks["launcher/org.example.Backup"]?["State"]?.string, "finished")
    }

    func testHiddenBeforeTheEndIsRemovedAndUnknownAppIsTitledById() throws {
        let app = try bus.connect()
        try update(
            app, "application://org.example.NotInstalled.desktop",
            [("progress", .double(0.5)), ("progress-visible", .bool(true))])
        let tasks = try waitForTasks { $0["launcher/org.example.NotInstalled"] != nil }
        XCTAssertEqual(tasks["launcher/org.example.NotInstalled"]?["Title"]?.string, "org.example.NotInstalled")
        try update(app, "application://org.example.NotInstalled.desktop", [("progress-visible", .bool(false))])
        XCTAssertTrue(
            try waitForTasks { $0["launcher/org.example.NotInstalled"] == nil }.isEmpty, "removed without an outcome")
    }

    func testSenderLeavingWhileVisibleFailsAndUrgentIsFlagged() throws {
        var app: BusConnection? = try bus.connect()
        try update(
            app!, "application://org.example.Backup.desktop",
            [("progress", .double(0.4)), ("progress-visible", .bool(true))])
        try waitForTasks { $0["launcher/org.example.Backup"] != nil }
        try update(app!, "application://org.example.Backup.desktop", [("urgent", .bool(true))])
        var tasks = try waitForTasks { $0["launcher/org.example.Backup"]?["Message"]?.string?.isEmpty == false }
        XCTAssertEqual(tasks["launcher/org.example.Backup"]?["Message"]?.string, "the application needs attention")
        app = nil  // closes the connection: the application is gone
        tasks = try waitForTasks { $0["launcher/org.example.Backup"]?["State"]?.string == "failed" }
        XCTAssertEqual(
            tasks["launcher/org.example.Backup"]?["State"]?.string, "failed", "a crash never looks like success")
        XCTAssertEqual(tasks["launcher/org.example.Backup"]?["Message"]?.string, "the application closed")
    }

    func testTwoSendersForOneAppGetTwoTasks() throws {
        let first = try bus.connect()
        let second = try bus.connect()
        try update(
            first, "application://org.example.Backup.desktop",
            [("progress", .double(0.1)), ("progress-visible", .bool(true))])
        try waitForTasks { $0["launcher/org.example.Backup"] != nil }
        try update(
            second, "application://org.example.Backup.desktop",
            [("progress", .double(0.9)), ("progress-visible", .bool(true))])
        let tasks = try waitForTasks { $0["launcher/org.example.Backup#2"] != nil }
        XCTAssertEqual(tasks["launcher/org.example.Backup#2"]?["Fraction"]?.double, 0.9)
        XCTAssertEqual(tasks["launcher/org.example.Backup"]?["Fraction"]?.double, 0.1)
    }

    func testBadInputIsDroppedOrClampedWithOneLogLinePerKind() throws {
        let app = try bus.connect()
        // Wrong signature, twice: one log line.
        for _ in 0..<2 {
            try app.emit(
                path: Self.entryPath, interface: Self.interface, member: "Update", [.string("application://x.desktop")])
        }
        // Not application://….desktop, twice.
        try update(app, "file:///etc/passwd", [("progress-visible", .bool(true))])
        try update(app, "application://nodesktop", [("progress-visible", .bool(true))])
        // Wrong key type, NaN, and out of range (clamped to 1).
        try update(
            app, "application://org.example.Typed.desktop",
            [("progress", .string("half")), ("progress-visible", .bool(true))])
        try update(
            app, "application://org.example.Nan.desktop",
            [("progress", .double(.nan)), ("progress-visible", .bool(true))])
        try update(
            app, "application://org.example.Big.desktop", [("progress", .double(7)), ("progress-visible", .bool(true))])
        // Plasma's re-broadcast of a KDE job is not an application's own.
        try update(app, "application://org.example.Proxied.desktop",
                   [("progress", .double(0.5)), ("progress-visible", .bool(true)),
                    ("proxied-for", .string("kuiserver"))])
        let tasks = try waitForTasks { $0["launcher/org.example.Big"] != nil && $0.count >= 3 }
        XCTAssertEqual(tasks["launcher/org.example.Big"]?["Fraction"]?.double, 1, "clamped to 0..1")
        XCTAssertEqual(tasks["launcher/org.example.Nan"]?["Fraction"]?.double, 0, "NaN ignored")
        XCTAssertEqual(tasks["launcher/org.example.Typed"]?["Fraction"]?.double, 0, "a string progress ignored")
        XCTAssertNil(tasks["launcher/org.example.Proxied"])
        XCTAssertEqual(
            Set(tasks.keys), ["launcher/org.example.Big", "launcher/org.example.Nan", "launcher/org.example.Typed"])
        let log = daemon.stopAndReadErrors()
        daemon = nil
        for kind in [
            "signature (s),", "which is not application://ID.desktop", "progress of type s", "progress NaN",
            "progress 7.0",
        ] {
            XCTAssertEqual(log.components(separatedBy: kind).count - 1, 1, "one log line for '\(kind)' in:\n\(log)")
        }
    }

    func testOwnsUnityNameWhenFreeAndGivesItUpToAReplacement() throws {
        let owner = try client.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                    "GetNameOwner", [.string("com.canonical.Unity")]).first?.string
        let daemonOwner = try client.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                          "GetNameOwner", [.string(BusNames.busName)]).first?.string
        XCTAssertEqual(owner, daemonOwner, "progressd took com.canonical.Unity while nobody had it")
        var dock: BusConnection? = try bus.connect()
        // Dash to Dock's flags: ALLOW_REPLACEMENT | REPLACE_EXISTING (and DO_NOT_QUEUE).
        let reply = try dock!.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                   "RequestName", [.string("com.canonical.Unity"), .uint32(1 | 2 | 4)])
        XCTAssertEqual(reply.first, .uint32(1), "the dock became the primary owner")
        // progressd keeps listening while the dock owns the name.
        let app = try bus.connect()
        try update(
            app, "application://org.example.Backup.desktop",
            [("progress", .double(0.3)), ("progress-visible", .bool(true))])
        try waitForTasks { $0["launcher/org.example.Backup"] != nil }
        let dockName = dock!.uniqueName
        dock = nil
        // progressd waited in line and has the name back.
        var now: String?
        BusConnection.pump(seconds: 5) {
            now = try? client.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                   "GetNameOwner", [.string("com.canonical.Unity")]).first?.string
            return now == daemonOwner
        }
        XCTAssertEqual(now, daemonOwner, "back from \(dockName)")
    }

    func testTaskWithAppIdGoesToTheDockWithLibunityTypesAndEndsHidden() throws {
        let dock = try bus.connect()
        let recorder = recordUpdates(on: dock)
        try client.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Start",
                        [.string("copy"), .vardict([("title", .string("Copying")),
                                                    ("app-id", .string("org.gnome.Nautilus")),
                                                    ("fraction", .double(0.1))])])
        let started = Date()
        for step in 2...30 {
            try client.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "SetFraction",
                            [.string("copy"), .double(Double(step) / 40)])
            // Pumping, not sleeping: each signal is timed when it arrives.
            BusConnection.pump(seconds: 0.01) { false }
        }
        let elapsed = Date().timeIntervalSince(started)
        let query = try client.call(BusNames.busName, "/org/progressd/Progress1/launcherentry/org_2egnome_2eNautilus",
                                    Self.interface, "Query").first?.dictionary
        XCTAssertEqual(query?["progress"]?.unboxed, .double(0.75), "Query answers the state now")
        XCTAssertEqual(query?["count"]?.unboxed, .int64(1))
        try client.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Finish", [.string("copy")])
        try client.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Remove", [.string("copy")])
        BusConnection.pump(seconds: 3) {
            recorder.signals.last?.signal.arguments.last?.dictionary?["progress-visible"]?.unboxed == .bool(false)
        }
        let signals = recorder.signals
        XCTAssertGreaterThan(signals.count, 1)
        for (_, signal) in signals {
            XCTAssertEqual(signal.arguments.first?.string, "application://org.gnome.Nautilus.desktop")
            let properties = signal.arguments.last?.dictionary ?? [:]
            XCTAssertEqual(properties["count"]?.unboxed.signature, "x")
            XCTAssertEqual(properties["count-visible"]?.unboxed.signature, "b")
            XCTAssertEqual(properties["progress"]?.unboxed.signature, "d")
            XCTAssertEqual(properties["progress-visible"]?.unboxed.signature, "b")
            XCTAssertEqual(properties["urgent"]?.unboxed.signature, "b")
        }
        // Coalesced to 10 signals a second per app, counted against the time the 29 changes
        // took (arrival gaps are not compared: a loaded machine delivers signals in clumps; the
        // spacing itself is SignalCoalescer's, tested on a manual clock). The 3 over are the
        // first value, Finish and Remove.
        XCTAssertLessThanOrEqual(signals.count, Int(elapsed * 10) + 3, "coalesced: \(signals.count) in \(elapsed) s")
        XCTAssertEqual(signals.last?.signal.arguments.last?.dictionary?["progress-visible"]?.unboxed, .bool(false))
        XCTAssertEqual(signals.last?.signal.arguments.last?.dictionary?["count-visible"]?.unboxed, .bool(false))
        // progressd's own signals did not come back in as tasks.
        XCTAssertTrue(try snapshot().keys.allSatisfy { !$0.hasPrefix("launcher/") })
    }

    func testAFailedTaskLingeringMakesTheEntryUrgent() throws {
        let dock = try bus.connect()
        let recorder = recordUpdates(on: dock)
        try client.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Start",
                        [.string("sync"), .vardict([("app-id", .string("org.example.Sync")),
                                                    ("fraction", .double(0.5))])])
        try client.call(
            BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Fail",
            [.string("sync"), .string("offline")])
        BusConnection.pump(seconds: 3) {
            recorder.signals.last?.signal.arguments.last?.dictionary?["urgent"]?.unboxed == .bool(true)
        }
        let last = recorder.signals.last?.signal.arguments.last?.dictionary
        XCTAssertEqual(last?["urgent"]?.unboxed, .bool(true), "a failed task lingers")
        XCTAssertEqual(last?["progress-visible"]?.unboxed, .bool(false))
        XCTAssertEqual(last?["count"]?.unboxed, .int64(0))
    }

    /// The dock's entry and `Aggregate` follow one rule: over a mix of weights, an
    /// indeterminate task, a paused one, a child (not counted: it is not top-level), another
    /// application's task and then a failed one lingering, the entry's count, fraction,
    /// urgency and whether it shows a fraction are what Aggregate says.
    func testTheDockShowsWhatAggregateSays() throws {
        let app = "org.example.Mixed"
        func call(_ method: String, _ arguments: [BusValue]) throws {
            try client.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, method, arguments)
        }
        func start(_ name: String, _ options: [(String, BusValue)], app: String = app) throws {
            try call("Start", [.string(name), .vardict([("app-id", .string(app))] + options)])
        }
        func assertAgree(_ what: String, file: StaticString = #filePath, line: UInt = #line) throws {
            let aggregate = try client.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface,
                                            "Aggregate", [.string(app)]).first?.dictionary ?? [:]
            let entry = try client.call(BusNames.busName,
                                        "/org/progressd/Progress1/launcherentry/org_2eexample_2eMixed",
                                        Self.interface, "Query").first?.dictionary ?? [:]
            guard case .uint64(let active)? = aggregate["active"]?.unboxed,
                  case .double(let fraction)? = aggregate["fraction"]?.unboxed,
                  case .bool(let indeterminate)? = aggregate["indeterminate"]?.unboxed,
                  case .string(let state)? = aggregate["state"]?.unboxed,
                  case .double(let progress)? = entry["progress"]?.unboxed else {
                return XCTFail("\(what): \(aggregate) \(entry)", file: file, line: line)
            }
            XCTAssertEqual(entry["count"]?.unboxed, .int64(Int64(active)), what, file: file, line: line)
            XCTAssertEqual(progress, fraction, accuracy: 1e-9, what, file: file, line: line)
            XCTAssertEqual(
                entry["progress-visible"]?.unboxed, .bool(active > 0 && !indeterminate), what, file: file, line: line)
            XCTAssertEqual(entry["urgent"]?.unboxed, .bool(state == "failed"), what, file: file, line: line)
        }
        try start("heavy", [("fraction", .double(0.2)), ("weight", .double(3))])
        try start("light", [("fraction", .double(0.9))])
        try start("spinner", [("indeterminate", .bool(true))])
        try start("held", [("fraction", .double(0.6))])
        try call("Update", [.string("held"), .vardict([("state", .string("paused"))])])
        try start("group", [("fraction", .double(0.1))])
        try start("group-part", [("fraction", .double(0.7)), ("parent", .string("group"))])
        try start("elsewhere", [("fraction", .double(1))], app: "org.example.Other")
        try assertAgree("running, paused, indeterminate and a child")
        try call("Fail", [.string("light"), .string("disk full")])
        try assertAgree("a failed task lingers")
        try call("Remove", [.string("heavy")])
        try call("Remove", [.string("held")])
        try assertAgree("two removed")
    }

    func testEntriesAreClearedOnStopAndLauncherTasksAreNotEchoed() throws {
        let dock = try bus.connect()
        let recorder = recordUpdates(on: dock)
        try client.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Start",
                        [.string("job"), .vardict([("app-id", .string("org.gnome.Terminal")),
                                                   ("fraction", .double(0.5))])])
        let app = try bus.connect()
        try update(
            app, "application://org.example.Backup.desktop",
            [("progress", .double(0.3)), ("progress-visible", .bool(true))])
        try waitForTasks { $0["launcher/org.example.Backup"] != nil }
        BusConnection.pump(seconds: 2) { recorder.signals.contains { $0.signal.sender != app.uniqueName } }
        XCTAssertEqual(daemon.stop(), 0)
        daemon = nil
        BusConnection.pump(seconds: 2) {
            recorder.signals.last?.signal.arguments.last?.dictionary?["progress-visible"]?.unboxed == .bool(false)
        }
        let fromDaemon = recorder.signals.map(\.signal).filter { $0.sender != app.uniqueName }
        XCTAssertEqual(Set(fromDaemon.compactMap { $0.arguments.first?.string }),
                       ["application://org.gnome.Terminal.desktop"],
                       "the launcher/ task is not sent back to the dock")
        XCTAssertEqual(
            fromDaemon.last?.arguments.last?.dictionary?["progress-visible"]?.unboxed, .bool(false), "cleared on stop")
    }
}

func g_get_monotonic_time_seconds() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
