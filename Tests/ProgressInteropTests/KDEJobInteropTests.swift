import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// progressd serving KDE jobs to KF5's clients on this machine (`make interop`, which installs
/// kde-cli-tools): kioclient5 copying a slow HTTP download, and a V1-only script.
final class KDEJobInteropTests: KioclientTestCase {
    func testAKioclientCopyIsATaskAndProgressctlCancelStopsIt() throws {
        try checkACopyIsATaskAndProgressctlCancelStopsIt()
    }

    func testKioclientKilledMidCopyLeavesAFailedTask() throws {
        let (copy, _) = try startCopy()
        waitFor("the copy's task to run") { taskProperty(task, "State") == .string("running") }
        copy.kill(SIGKILL)
        waitFor("the task to fail") { taskProperty(task, "State") == .string("failed") }
        XCTAssertEqual(taskProperty(task, "Message"), .string("the application closed unexpectedly"))
    }

    func testAV1OnlyClientIsATaskAndCanBeCancelled() throws {
        let job = try run("/usr/bin/python3", [Self.helpers.appendingPathComponent("kde-v1-client.py").path])
        let name = "kde/kv1job/1"
        waitFor("the V1 job's files") {
            if case .uint64(let completed)? = taskProperty(name, "Completed") { return completed > 0 }
            return false
        }
        XCTAssertEqual(taskProperty(name, "Unit"), .string("files"))
        XCTAssertEqual(taskProperty(name, "Total"), .uint64(100))
        XCTAssertEqual(taskProperty(name, "Message"), .string("Fetching; Source: ftp://example/file"))
        XCTAssertEqual(try progressctl(["cancel", name]).status, 0)
        XCTAssertEqual(job.waitForExit(seconds: 20), 0, "the V1 client heard cancelRequested")
        waitFor("the V1 task to read cancelled") { taskProperty(name, "State") == .string("cancelled") }
    }
}
