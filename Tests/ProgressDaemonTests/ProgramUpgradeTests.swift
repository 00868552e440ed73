import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// An upgrade reaches the running daemon: progressd, started by D-Bus activation from a
/// copy of its program, has that copy replaced the way dpkg replaces it (the new file
/// beside, renamed over), and runs the new file in the same process, with its tasks and
/// their bindings, while a client's calls keep coming: every call is answered, none by a
/// second daemon (the one the bus starts for a call sent while the name has no owner stands
/// by and ends), and the same process owns the name afterwards.
final class ProgramUpgradeTests: DaemonTestCase {
    override var startsBusAtSetUp: Bool { false }
    override var startsDaemonAtSetUp: Bool { false }
    private var bin: URL!

    override func tearDown() {
        // The activated daemon is not the fixture's: it ends with its bus.
        super.tearDown()
        if let bin { try? FileManager.default.removeItem(at: bin) }
    }

    private func daemonProcess() -> Int32? {
        let reply = try? client.call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionUnixProcessID",
            [.string(BusNames.busName)])
        if case .uint32(let pid)? = reply?.first { return Int32(pid) }
        return nil
    }

    private func program(of pid: Int32) -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) ?? ""
    }

    /// A Manager call as clients make it, which the bus may start the daemon for.
    @discardableResult
    private func call(
        _ method: String, _ arguments: [BusValue], on connection: BusConnection? = nil
    ) throws -> [BusValue] {
        try (connection ?? client).call(
            BusNames.busName, BusNames.managerPath, BusNames.managerInterface, method, arguments, autoStart: true)
    }

    private func describe(_ name: String) -> [String: BusValue]? {
        try? client.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Describe",
                         [.string(name), .string("")]).first?.dictionary
    }

    func testAReplacedProgramRunsInTheDaemonsPlaceWithItsTasksAndBindings() throws {
        bin = Scratch.directory("progressd-bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let installed = bin.appendingPathComponent("progressd")
        try FileManager.default.copyItem(at: BuildProducts.url(of: "progressd"), to: installed)
        try startBus(activating: ["org.progressd.Progress1"], bindir: bin)

        // The first call starts the daemon from the copy.
        try call("Start", [.string("backup"), .vardict([("title", .string("Backup"))])])
        try call("SetFraction", [.string("backup"), .double(0.42)])
        var job: BusConnection? = try bus.connect()
        try call("Start", [.string("job"), .vardict([("lifetime", .string("caller"))])], on: job)
        let pid = try XCTUnwrap(daemonProcess())
        XCTAssertEqual(program(of: pid), installed.path)
        let ownerBefore = nameOwner(BusNames.busName)

        let upgrade = bin.appendingPathComponent("progressd.dpkg-new")
        try FileManager.default.copyItem(at: BuildProducts.url(of: "progressd"), to: upgrade)
        XCTAssertEqual(rename(upgrade.path, installed.path), 0)
        XCTAssertEqual(program(of: pid), installed.path + " (deleted)")

        // Calls keep coming while the daemon hands over; the last value set is kept.
        var calls = 0
        var failures: [String] = []
        let handedOver = BusConnection.pump(seconds: 30) {
            calls += 1
            do {
                try self.call("SetFraction", [.string("backup"), .double(Double(calls % 100) / 100)])
            } catch {
                failures.append("\(error)")
            }
            return self.program(of: pid) == installed.path && self.nameOwner(BusNames.busName) != ownerBefore
        }
        XCTAssertTrue(handedOver, "the daemon runs \(program(of: pid)) after \(calls) calls")
        try call("SetFraction", [.string("backup"), .double(0.5)])
        XCTAssertEqual(failures, [], "every call during the hand-over was answered")
        XCTAssertEqual(daemonProcess(), pid, "the same process serves, not a second daemon")
        XCTAssertEqual(describe("backup")?["Fraction"]?.double, 0.5)
        XCTAssertEqual(describe("backup")?["Title"]?.string, "Backup")
        XCTAssertEqual(describe("job")?["State"]?.string, "running")
        XCTAssertEqual(describe("job")?["Stalled"]?.bool, false, "bound to its job's connection still")

        job = nil
        var last: [String: BusValue]?
        XCTAssertTrue(BusConnection.pump(seconds: 10) {
            last = self.describe("job")
            return last?["State"]?.string == "failed"
        })
        XCTAssertTrue(last?["Message"]?.string?.hasPrefix("owner went away") == true, "\(String(describing: last))")
    }
}
