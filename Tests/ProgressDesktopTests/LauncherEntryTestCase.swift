import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// The daemon fixture with an installed-looking desktop file (org.example.Backup, "Photo
/// Backup"), and helpers for fake LauncherEntry clients that are plain connections.
class LauncherEntryTestCase: DaemonTestCase {
    var dataDirectory: URL!
    override var daemonEnvironment: [String: String] { ["XDG_DATA_DIRS": dataDirectory.path] }

    static let interface = "com.canonical.Unity.LauncherEntry"
    static let entryPath = "/com/canonical/unity/launcherentry/1"

    override func prepareBus() throws {
        dataDirectory = bus.scratchFile("apps")
        let applications = dataDirectory.appendingPathComponent("applications")
        try FileManager.default.createDirectory(at: applications, withIntermediateDirectories: true)
        try "[Desktop Entry]\nType=Application\nName=Photo Backup\nExec=true\n"
            .write(
                to: applications.appendingPathComponent("org.example.Backup.desktop"), atomically: true,
                encoding: .utf8)
    }

    // MARK: Helpers

    func update(_ emitter: BusConnection, _ uri: String, _ properties: [(String, BusValue)]) throws {
        try emitter.emit(
            path: Self.entryPath, interface: Self.interface, member: "Update", [.string(uri), .vardict(properties)])
        emitter.flush()
    }

    /// An Update from a process of its own, which stays on the bus (its identity must be
    /// learned from /proc while it runs) until the test ends.
    func updateFromAnotherProcess(_ uri: String, progress: Double) throws {
        let script = """
            import sys, time
            from gi.repository import Gio, GLib
            bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
            properties = {"progress": GLib.Variant("d", float(sys.argv[2])), \
            "progress-visible": GLib.Variant("b", True)}
            bus.emit_signal(None, "\(Self.entryPath)", "\(Self.interface)", "Update", \
            GLib.Variant("(sa{sv})", (sys.argv[1], properties)))
            bus.flush_sync(None)
            print("sent", flush=True)
            time.sleep(600)
            """
        let helper = try HelperProcess(
            "/usr/bin/python3", ["-c", script, uri, String(progress)], environment: bus.environment)
        helpers.append(helper)
        XCTAssertTrue(BusConnection.pump(seconds: 10) { helper.lines.contains("sent") }, "the helper sent its Update")
    }

    func snapshot() throws -> [String: [String: BusValue]] {
        let reply = try client.call(
            BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Snapshot", [.string("")])
        var tasks: [String: [String: BusValue]] = [:]
        for (name, value) in reply.first?.dictionary ?? [:] { tasks[name] = value.dictionary ?? [:] }
        return tasks
    }

    /// Waits until the task list satisfies `condition`; returns the last snapshot.
    @discardableResult
    func waitForTasks(
        _ seconds: Double = 5, _ condition: ([String: [String: BusValue]]) -> Bool
    ) throws -> [String: [String: BusValue]] {
        var last: [String: [String: BusValue]] = [:]
        _ = BusConnection.pump(seconds: seconds) {
            last = (try? snapshot()) ?? [:]
            return condition(last)
        }
        return last
    }

    // MARK: Dock-like listener

    /// A listener matching as Dash to Dock does (any sender, any path).
    func recordUpdates(on connection: BusConnection) -> UpdateRecorder {
        let recorder = UpdateRecorder()
        connection.subscribe(interface: Self.interface, member: "Update") { signal in
            recorder.signals.append((g_get_monotonic_time_seconds(), signal))
        }
        _ = try? connection.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId")
        return recorder
    }

    final class UpdateRecorder {
        var signals: [(time: Double, signal: BusSignal)] = []
    }

}
