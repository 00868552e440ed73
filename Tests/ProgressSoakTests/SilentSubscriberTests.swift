import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Issue 12: 16 subscriptions asking for Changed every 0.1 s while 100 tasks updated made
/// progressd push 13 MB/s at a process that never read; dbus-daemon grew from 78 to 599 MB
/// in 40 s and everyone's rate fell. Now a connection gets at most 400 Changed a second,
/// and one that does not answer a Ping within 3 s gets nothing until it does.
final class SilentSubscriberTests: DaemonTestCase {
    /// The private bus's dbus-daemon, found by its configuration file, which lives in the
    /// bus's own directory.
    func busDaemonResidentBytes() throws -> Int {
        let directory = bus.stateDirectory.deletingLastPathComponent().path
        for entry in try FileManager.default.contentsOfDirectory(atPath: "/proc") where Int(entry) != nil {
            guard let cmdline = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { continue }
            let words = String(decoding: cmdline, as: UTF8.self).split(separator: "\0")
            guard words.first?.hasSuffix("dbus-daemon") == true,
                  words.contains(where: { $0.contains(directory) }) else { continue }
            let status = try String(contentsOfFile: "/proc/\(entry)/status", encoding: .utf8)
            let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
            return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
        }
        throw TestSupportError("no dbus-daemon for \(directory)")
    }

    func testAStoppedSubscriberDoesNotSwellTheBusAndOthersKeepTheirRate() throws {
        let names = (0..<100).map { "task-\($0)" }
        for name in names { try start(name, [("title", .string(String(repeating: "t", count: 200)))]) }

        // The silent one: python3-dbus, 16 subscriptions, then stopped.
        let script = """
            import dbus, dbus.mainloop.glib
            from gi.repository import GLib
            dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
            manager = dbus.Interface(dbus.SessionBus().get_object('org.progressd.Progress1', \
            '/org/progressd/Progress1'),
                                     'org.progressd.Progress1.Manager')
            for _ in range(16):
                manager.Subscribe({'changes': True, 'announcements': False, 'interval-seconds': 0.1})
            print('ready', flush=True)
            GLib.MainLoop().run()
            """
        let subscriber = Process()
        subscriber.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        subscriber.arguments = ["-c", script]
        subscriber.environment = bus.environment
        let output = Pipe()
        subscriber.standardOutput = output
        try subscriber.run()
        defer {
            kill(subscriber.processIdentifier, SIGCONT)
            subscriber.terminate()
            subscriber.waitUntilExit()
        }
        let ready = output.fileHandleForReading.availableData
        XCTAssertTrue(String(decoding: ready, as: UTF8.self).contains("ready"))

        // The one that reads: ten tasks, every 0.1 s.
        var heard = 0
        let path = try XCTUnwrap(manager("Subscribe", [.vardict([
            ("changes", .bool(true)), ("announcements", .bool(false)), ("interval-seconds", .double(0.1)),
            ("tasks", .array(elementType: "s", names.prefix(10).map { .string($0) })),
        ])], on: listener).first?.string)
        listener.subscribe(path: path) { signal in if signal.member == "Changed" { heard += 1 } }
        try listener.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId")

        kill(subscriber.processIdentifier, SIGSTOP)
        let before = try busDaemonResidentBytes()
        let began = Date()
        var step = 0
        while Date().timeIntervalSince(began) < 10 {
            step += 1
            let entries = names.map { name in
                BusValue.tuple([.string(name), .vardict([("fraction", .double(Double(step % 1_000) / 1_000))])])
            }
            try manager("UpdateMany", [.array(elementType: "(sa{sv})", entries)])
            BusConnection.pump(seconds: 0.005) { false }
        }
        let seconds = Date().timeIntervalSince(began)
        let grown = try busDaemonResidentBytes() - before
        print("SilentSubscriberTests: \(step) rounds in \(seconds) s; dbus-daemon grew \(grown / 1024) KB; "
            + "the reader heard \(heard)")
        XCTAssertLessThan(grown, 40 << 20, "dbus-daemon grew \(grown / 1024) KB for a subscriber that does not read")
        XCTAssertGreaterThan(
            Double(heard) / seconds, 30, "the reading subscriber keeps its rate (10 tasks at 10 a second)")
        XCTAssertTrue(daemon.process.isRunning)
    }
}
