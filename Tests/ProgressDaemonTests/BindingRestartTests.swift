import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// A restart keeps every binding: a `caller` task killed with progressd (SIGKILL) is bound
/// again, after the restart, to the connection that started it, when that connection is
/// still on the bus and still the same process; its departure then fails the task, as it
/// would have before. A connection that left while progressd was down fails its tasks as
/// soon as progressd is back. Each test waits for the task's state, not for a time.
final class BindingRestartTests: DaemonTestCase {
    func describe(_ name: String) -> [String: BusValue]? {
        try? client.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Describe",
                         [.string(name), .string("")]).first?.dictionary
    }

    func waitForOutcome(
        _ name: String, _ state: String, file: StaticString = #filePath, line: UInt = #line
    ) -> String? {
        var last: [String: BusValue]?
        let reached = BusConnection.pump(seconds: 10) {
            last = self.describe(name)
            return last?["State"]?.string == state
        }
        XCTAssertTrue(
            reached, "\(name) is \(last?["State"]?.string ?? "missing"), not \(state)", file: file, line: line)
        return last?["Message"]?.string
    }

    /// Issue 48's steps: `progressctl run`, progressd killed and started again, then the job
    /// killed: its task fails at once, as it did before the restart.
    func testAProgressctlRunKilledAfterARestartFailsItsTask() throws {
        let run = Process()
        run.executableURL = BuildProducts.url(of: "progressctl")
        run.arguments = ["run", "job", "--", "sh", "-c", "echo 10%; sleep 60"]
        run.environment = bus.environment
        run.standardOutput = FileHandle.nullDevice
        let runExit = ProcessExit(run)
        try run.run()
        XCTAssertTrue(BusConnection.pump(seconds: 10) { self.describe("job")?["Fraction"]?.double == 0.1 })

        try restartDaemon(killing: true)
        XCTAssertEqual(describe("job")?["State"]?.string, "running")
        kill(run.processIdentifier, SIGKILL)
        runExit.wait()
        let message = waitForOutcome("job", "failed")
        XCTAssertTrue(message?.hasPrefix("owner went away") == true, message ?? "")
    }

    /// The job left while progressd was down: its task fails as soon as progressd is back.
    func testACallerThatLeftWhileTheDaemonWasDownFailsItsTaskAtTheRestart() throws {
        var job: BusConnection? = try bus.connect()
        try start("gone", [("lifetime", .string("caller"))], on: job)
        try start("stays", [("lifetime", .string("caller"))])
        daemon.kill()
        job = nil
        try startDaemon()
        XCTAssertTrue(waitForOutcome("gone", "failed")?.hasPrefix("owner went away") == true)
        XCTAssertEqual(describe("stays")?["State"]?.string, "running", "its connection is still there")
        XCTAssertEqual(describe("stays")?["Stalled"]?.bool, false)
    }

    /// Bound again across two restarts (the journal compacted at the first keeps the binding),
    /// a clean one and a SIGKILL, and the job's connection still ends the task.
    func testABindingSurvivesTwoRestartsAndTheJobsConnectionEndsIt() throws {
        var job: BusConnection? = try bus.connect()
        try start("twice", [("lifetime", .string("caller"))], on: job)
        try restartDaemon()
        _ = try manager("SetFraction", [.string("twice"), .double(0.5)], on: job)
        try restartDaemon(killing: true)
        XCTAssertEqual(describe("twice")?["State"]?.string, "running")
        XCTAssertEqual(describe("twice")?["Stalled"]?.bool, false)
        job = nil
        XCTAssertTrue(waitForOutcome("twice", "failed")?.hasPrefix("owner went away") == true)
    }
}
