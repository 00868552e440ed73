import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// What happens when clients, the daemon or the bus die.
final class FaultTests: DaemonTestCase {
    override var startsDaemonAtSetUp: Bool { false }

    func state(_ client: BusConnection, _ name: String) -> [String: BusValue]? {
        try? client.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Describe",
                         [.string(name), .string("")]).first?.dictionary
    }

    /// A job killed with SIGKILL: its `caller` task fails at once; a lease task stalls, then expires.
    func testKilledClients() throws {
        try startDaemon()

        let run = Process()
        run.executableURL = BuildProducts.url(of: "progressctl")
        run.arguments = ["run", "bound", "--", "sleep", "30"]
        run.environment = bus.environment
        let runExit = ProcessExit(run)
        try run.run()
        let leased = Process()
        leased.executableURL = URL(fileURLWithPath: "/bin/sh")
        leased.arguments = ["-c", """
            gdbus call --session --dest \(BusNames.busName) --object-path \(BusNames.managerPath) \
              --method \(BusNames.managerInterface).Start leased \
            "{'lease-seconds': <uint32 2>, 'stall-seconds': <uint32 1>}" >/dev/null
            while true; do
              gdbus call --session --dest \(BusNames.busName) --object-path \(BusNames.managerPath) \
                --method \(BusNames.managerInterface).SetFraction leased 0.5 >/dev/null; sleep 0.1
            done
            """]
        leased.environment = bus.environment
        let leasedExit = ProcessExit(leased)
        try leased.run()
        XCTAssertTrue(BusConnection.pump(seconds: 10) {
            self.state(client, "bound")?["State"]?.string == "running"
                && self.state(client, "leased")?["Fraction"]?.double == 0.5
        })
        kill(run.processIdentifier, SIGKILL)
        kill(leased.processIdentifier, SIGKILL)
        runExit.wait()
        leasedExit.wait()
        XCTAssertTrue(BusConnection.pump(seconds: 5) { self.state(client, "bound")?["State"]?.string == "failed" })
        XCTAssertTrue(state(client, "bound")?["Message"]?.string?.hasPrefix("owner went away") == true)
        XCTAssertTrue(BusConnection.pump(seconds: 5) { self.state(client, "leased")?["Stalled"]?.bool == true })
        XCTAssertEqual(state(client, "leased")?["State"]?.string, "running", "stalled is not failed")
        XCTAssertTrue(BusConnection.pump(seconds: 5) { self.state(client, "leased")?["State"]?.string == "failed" })
        XCTAssertEqual(state(client, "leased")?["Message"]?.string, "expired: no update for 2 seconds")
    }

    /// SIGKILL while a client streams updates: every outcome the daemon replied to is there after a restart.
    func testTheDaemonKilledUnderLoadKeepsEveryTransitionItRepliedTo() throws {
        try startDaemon()
        func call(_ method: String, _ arguments: [BusValue]) throws {
            try client.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, method, arguments)
        }
        try call("Start", [.string("busy"), .vardict([])])
        var replied: [String: String] = [:]
        let killAt = Int.random(in: 40...120)
        for index in 0..<killAt {
            let name = "job\(index)"
            try call("Start", [.string(name), .vardict([])])
            for step in 0..<20 {
                client.send(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "SetFraction",
                            [.string("busy"), .double(Double(step) / 20)])
            }
            if index % 3 == 0 {
                try call("Fail", [.string(name), .string("number \(index)")])
                replied[name] = "failed"
            } else {
                try call("Finish", [.string(name)])
                replied[name] = "finished"
            }
        }
        try restartDaemon(killing: true)
        for (name, outcome) in replied {
            XCTAssertEqual(state(client, name)?["State"]?.string, outcome, name)
        }
        XCTAssertNotNil(state(client, "busy"))
    }

    /// Group commit: Starts that arrive together are synced once, and SIGKILL right after the
    /// replies loses none of them.
    func testStartsRepliedToInOneGroupSurviveSIGKILL() throws {
        try startDaemon()
        var replied: [String] = []
        for round in 0..<4 {
            let names = (0..<64).map { "group\(round)-\($0)" }
            let results = client.callAll(
                BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Start",
                names.map { [.string($0), .vardict([("lifetime", .string("persistent"))])] })
            for (name, result) in zip(names, results) {
                if case .success = result { replied.append(name) }
            }
        }
        XCTAssertEqual(replied.count, 256, "every Start was answered")
        try restartDaemon(killing: true)
        let listed = try client.call(
            BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "List").first?.strings ?? []
        XCTAssertEqual(Set(replied).subtracting(listed), [], "no replied Start is lost")
    }

    /// A lost bus: the daemon exits 1 (so systemd restarts it) and has saved even the values
    /// that were waiting for the once-a-second save.
    func testALostBusExitsNonZeroWithTheStateSaved() throws {
        let state = Scratch.directory("fault-state")
        defer { try? FileManager.default.removeItem(at: state) }
        try startDaemon(["--state-directory", state.path])
        _ = try client.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Start",
                            [.string("copy"), .vardict([])])
        _ = try client.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "SetFraction",
                            [.string("copy"), .double(0.25)])
        _ = try client.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "SetFraction",
                            [.string("copy"), .double(0.75)])  // within a second: only in memory so far
        stopBus()
        XCTAssertEqual(daemonExited().status, 1, "exits on its own")
        try startBus()
        try startDaemon(["--state-directory", state.path])
        XCTAssertEqual(self.state(client, "copy")?["Fraction"], .double(0.75))
    }
}
