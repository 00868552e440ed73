import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// AT_SPI_BUS_ADDRESS names a bus whose "registry" takes calls and never answers: the
/// daemon connects to it (the variable overrides org.a11y.Status) and its session-bus
/// service stays as quick as ever, since nothing waits on the accessibility bus.
final class AccessibilityBadPeerTests: XCTestCase {
    func testARegistryThatNeverAnswersSlowsNothing() throws {
        let session = try PrivateBus()
        let a11yBus = try PrivateBus()
        defer {
            a11yBus.stop()
            session.stop()
        }
        // libdbus without a main loop: owns the registry's name, reads nothing, answers nothing.
        let mute = Process()
        mute.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        mute.arguments = ["-c", """
            import dbus, sys, time
            bus = dbus.bus.BusConnection(sys.argv[1])
            bus.request_name("org.a11y.atspi.Registry")
            print("OWNED", flush=True)
            time.sleep(120)
            """, a11yBus.address]
        let output = Pipe()
        mute.standardOutput = output
        try mute.run()
        defer { mute.terminate() }
        XCTAssertEqual(String(decoding: output.fileHandleForReading.availableData, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines), "OWNED")

        let daemon = try DaemonProcess(bus: session, environment: ["AT_SPI_BUS_ADDRESS": a11yBus.address])
        defer { XCTAssertEqual(daemon.stop(), 0) }
        let client = try session.connect()
        let watcher = try a11yBus.connect()
        let pid = UInt32(daemon.process.processIdentifier)
        let connected = poll(seconds: 20) {
            let names = (try? watcher.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "ListNames"))?
                .first?.strings ?? []
            return names.contains { name in
                guard name.hasPrefix(":"), let reply = try? watcher.call(
                    "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionUnixProcessID",
                    [.string(name)]) else { return false }
                if case .uint32(let owner) = reply.first?.unboxed { return owner == pid }
                return false
            }
        }
        XCTAssertTrue(connected, "the daemon connected to the bus AT_SPI_BUS_ADDRESS names")
        // Embed now waits for a reply that never comes; the session bus is served meanwhile.
        var slowest = 0.0
        for index in 0..<20 {
            let started = Date()
            try client.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Start",
                            [.string("job\(index)"), .vardict([])])
            try client.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "List")
            slowest = max(slowest, Date().timeIntervalSince(started))
            Thread.sleep(forTimeInterval: 0.1)
        }
        XCTAssertLessThan(slowest, 1.0, "no call waited on the accessibility bus (slowest \(slowest) s)")
        XCTAssertTrue(daemon.process.isRunning)
    }
}
