import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// LauncherEntry with real clients: libunity (gir1.2-unity-7.0 through PyGObject) as the
/// sender, and a PyGObject listener that subscribes as Dash to Dock does.
final class LauncherEntryInteropTests: InteropTestCase {
    func testLibunityProgressBecomesTaskWithTitleAndFinishes() throws {
        let emitter = try helper("unity-emitter.py", [
            "org.example.Backup.desktop", "wait-unity", "progress=0.3", "visible=1", "sleep=0.5", "progress=0.6",
            "sleep=1.5", "progress=1", "sleep=0.2", "visible=0", "sleep=0.3",
        ])
        XCTAssertEqual(emitter.waitForLine("unity-running"), "unity-running True", emitter.output)
        var tasks = waitForTasks { $0["launcher/org.example.Backup"]?["Fraction"]?.double == 0.6 }
        let task = try XCTUnwrap(tasks["launcher/org.example.Backup"], emitter.output)
        XCTAssertEqual(task["AppId"]?.string, "org.example.Backup")
        XCTAssertEqual(task["Title"]?.string, "Photo Backup", "the Name of the desktop file, through GDesktopAppInfo")
        XCTAssertEqual(task["Fraction"]?.double, 0.6)
        XCTAssertEqual(task["State"]?.string, "running")
        tasks = waitForTasks { $0["launcher/org.example.Backup"]?["State"]?.string == "finished" }
        XCTAssertEqual(tasks["launcher/org.example.Backup"]?["State"]?.string, "finished", emitter.output)
        XCTAssertNotNil(emitter.waitForExit(seconds: 15))
        // Gone from the bus: the daemon hears of it before the Snapshot that follows.
        let emitterName = try XCTUnwrap(emitter.waitForLine("ready")?.split(separator: " ").last.map(String.init))
        waitUntilGone(emitterName)
        XCTAssertEqual(
            try snapshot()["launcher/org.example.Backup"]?["State"]?.string, "finished",
            "leaving after the end is fine")
    }

    func testEmitterExitingWithProgressVisibleLeavesFailedTask() throws {
        let emitter = try helper("unity-emitter.py", [
            "org.example.Backup.desktop", "wait-unity", "progress=0.4", "visible=1", "sleep=0.5", "exit",
        ])
        XCTAssertNotNil(emitter.waitForExit(seconds: 15), emitter.output)
        let tasks = waitForTasks { $0["launcher/org.example.Backup"]?["State"]?.string == "failed" }
        XCTAssertEqual(
            tasks["launcher/org.example.Backup"]?["State"]?.string, "failed", "a crash never looks like success")
        XCTAssertEqual(tasks["launcher/org.example.Backup"]?["Message"]?.string, "the application closed")
        XCTAssertEqual(tasks["launcher/org.example.Backup"]?["Fraction"]?.double, 0.4)
    }

    func testUnityNameTakenWhenFreeAndGivenUpToAReplacingDock() throws {
        let daemonName = nameOwner(BusNames.busName)
        XCTAssertNotNil(daemonName)
        XCTAssertEqual(nameOwner("com.canonical.Unity"), daemonName, "taken while nobody had it")
        let dock = try helper("claim-unity.py", [], readsCommands: true)
        let line = try XCTUnwrap(dock.waitForLine("owned") ?? dock.waitForLine("not-owned", seconds: 1), dock.output)
        XCTAssertTrue(line.hasPrefix("owned "), line)
        let dockName = String(line.dropFirst("owned ".count))
        XCTAssertEqual(nameOwner("com.canonical.Unity"), dockName, "given up to the replacing connection")
        // Still listening while the dock has the name: libunity keeps sending to whoever owns it.
        let emitter = try helper(
            "unity-emitter.py", ["org.example.Backup.desktop", "wait-unity", "progress=0.2", "visible=1", "sleep=0.3"])
        XCTAssertNotNil(
            waitForTasks { $0["launcher/org.example.Backup"] != nil }["launcher/org.example.Backup"], emitter.output)
        dock.stop()
        BusConnection.pump(seconds: 5) { nameOwner("com.canonical.Unity") == daemonName }
        XCTAssertEqual(nameOwner("com.canonical.Unity"), daemonName, "progressd waited in line and has it back")
    }

    func testDockListenerGetsLibunityTypedCoalescedSignalsEndingHidden() throws {
        let dock = try helper("dock-listener.py", ["60"])
        XCTAssertNotNil(dock.waitForLine("ready"), dock.output)
        let daemonName = try XCTUnwrap(nameOwner(BusNames.busName))
        _ = try manager("Start", [.string("term"), .vardict([("title", .string("Building")),
                                                             ("app-id", .string("org.gnome.Terminal")),
                                                             ("fraction", .double(0))])])
        let started = Date()
        for step in 1...50 {
            _ = try manager("SetFraction", [.string("term"), .double(Double(step) / 50)])
            pause(0.01)
        }
        let elapsed = Date().timeIntervalSince(started)
        _ = try manager("Finish", [.string("term")])
        _ = try manager("Remove", [.string("term")])
        BusConnection.pump(seconds: 5) { dock.output.contains("\"count-visible\": [\"b\", false]") }

        let signals = dock.lines.compactMap { line -> [String: Any]? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                return nil
            }
            return object["sender"] as? String == daemonName ? object : nil
        }
        XCTAssertGreaterThan(signals.count, 2, dock.output)
        for signal in signals {
            XCTAssertEqual(signal["signature"] as? String, "(sa{sv})")
            XCTAssertEqual(signal["uri"] as? String, "application://org.gnome.Terminal.desktop")
            let props = signal["props"] as? [String: [Any]] ?? [:]
            XCTAssertEqual(props.mapValues { $0.first as? String }, [
                "count": "x", "count-visible": "b", "progress": "d", "progress-visible": "b", "urgent": "b",
            ], "libunity's types")
        }
        let times = signals.compactMap { $0["time"] as? Double }
        let gaps = zip(times, times.dropFirst()).map { $1 - $0 }
        // The default task signal rate is 10 a second; 50 changes must not make 50 signals.
        // Counted against the elapsed time, not by arrival gaps: a loaded machine delivers
        // signals in clumps (the spacing is SignalCoalescer's, tested on a manual clock).
        XCTAssertLessThanOrEqual(signals.count, Int(elapsed * 10) + 4, "about one per 100 ms over \(elapsed) s")
        let last = signals.last?["props"] as? [String: [Any]]
        XCTAssertEqual(last?["progress-visible"]?.last as? Bool, false)
        XCTAssertEqual(last?["count-visible"]?.last as? Bool, false)
        print("dock signals: \(signals.count) in \(String(format: "%.2f", elapsed)) s of 50 changes; smallest gap "
              + String(format: "%.3f", gaps.min() ?? 0) + " s")
        // progressd's own signals did not come back in as tasks.
        let names = try snapshot().keys
        XCTAssertTrue(names.allSatisfy { !$0.hasPrefix("launcher/") }, "\(names)")
    }

    /// The issue's "done means": `progressctl run --app-id …` shows progress on a dock.
    func testProgressctlRunWithAnAppIdShowsOnTheDock() throws {
        let dock = try helper("dock-listener.py", ["60"])
        XCTAssertNotNil(dock.waitForLine("ready"), dock.output)
        let run = try run(BuildProducts.url(of: "progressctl").path, [
            "run", "build", "--app-id", "org.gnome.Terminal", "--progress-regex", "([0-9]+)/([0-9]+)", "--",
            "sh", "-c", "for i in 1 2 3 4; do echo $i/4; sleep 0.3; done",
        ])
        XCTAssertEqual(run.status, 0, run.errors)
        // The task starts indeterminate, so its first entry already has progress-visible
        // false: only count-visible false says the app has no task left.
        BusConnection.pump(seconds: 5) { dock.output.contains("\"count-visible\": [\"b\", false]") }
        let updates = dock.lines.filter { $0.contains("application://org.gnome.Terminal.desktop") }
        XCTAssertTrue(updates.contains { $0.contains("\"progress-visible\": [\"b\", true]") }, dock.output)
        XCTAssertTrue(updates.contains { $0.contains("\"progress\": [\"d\", 0.5]") }, dock.output)
        XCTAssertTrue(updates.last?.contains("\"count-visible\": [\"b\", false]") == true, dock.output)
    }
}
