import Foundation
import ProgressBus
import ProgressClient
import ProgressModel
import ProgressTestSupport
import XCTest

/// Debian 12's real packagekitd (dummy backend) with the real polkitd on a private system
/// bus, in a private mount namespace (helpers/packagekit-system.sh), driven by the real
/// `pkcon`: its transactions become progressd tasks with their real percent and outcome.
final class PackageKitInteropTests: SystemServiceInteropTestCase {
    override func setUpBeforeDaemon() throws {
        // packagekitd is up within half a second, polkitd too.
        try startServices(
            "packagekit-system.sh", owning: ["org.freedesktop.PackageKit", "org.freedesktop.PolicyKit1"], seconds: 20)
    }

    /// `pkcon` with the private system bus, as a helper (it runs while the test watches).
    func pkcon(_ arguments: [String]) throws -> HelperProcess {
        let helper = try HelperProcess("/usr/bin/pkcon", arguments, environment: environment)
        helpers.append(helper)
        return helper
    }

    /// Every PackageKit task's properties now.
    func packageTasks() -> [String: [String: BusValue]] {
        guard let names = try? client.call(
            BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "List", []).first?.strings
        else { return [:] }
        var tasks: [String: [String: BusValue]] = [:]
        for name in names where name.hasPrefix("system/packagekit/") {
            tasks[name] = try? client.call(
                BusNames.busName, BusNames.taskPath(try TaskName(name)), BusNames.propertiesInterface, "GetAll",
                [.string(BusNames.taskInterface)]
            ).first?.dictionary
        }
        return tasks
    }

    /// Watches until a task with `title` ends; returns its last properties and the fractions it showed.
    func follow(title: String, seconds: Double = 60) -> (task: [String: BusValue]?, fractions: [Double]) {
        var fractions: [Double] = []
        var last: [String: BusValue]?
        _ = BusConnection.pump(seconds: seconds) {
            guard let task = packageTasks().values.first(where: { $0["Title"]?.string == title }) else { return false }
            last = task
            if task["Indeterminate"]?.bool == false, let fraction = task["Fraction"]?.double,
               fraction != fractions.last {
                fractions.append(fraction)
            }
            return task["State"]?.string != "running"
        }
        return (last, fractions)
    }

    func assertRises(_ fractions: [Double], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertGreaterThanOrEqual(
            fractions.count, 3, "the fraction moved in steps: \(fractions)", file: file, line: line)
        XCTAssertEqual(fractions, fractions.sorted(), "and only up", file: file, line: line)
    }

    func testARefreshAndAnInstallRiseAndFinish() throws {
        let refresh = try pkcon(["refresh"])
        let refreshed = follow(title: "Refreshing software sources")
        XCTAssertEqual(refreshed.task?["State"]?.string, "finished", "\(refreshed)")
        assertRises(refreshed.fractions)
        XCTAssertEqual(refresh.waitForExit(seconds: 30), 0)

        // pkcon asks for trusted packages only; the dummy backend answers that it needs
        // untrusted ones, and pkcon runs the install again as a new transaction: one task,
        // never failed (a failed one stayed listed until its transaction's Destroy, 5 s on).
        let before = Set(packageTasks().keys)
        let install = try pkcon(["-y", "install", "scribus;1.3.4-1.fc8;i386;fedora"])
        var titles: Set<String> = []
        var states: [String: [String]] = [:]
        _ = BusConnection.pump(seconds: 60) {
            for (name, task) in packageTasks() where !before.contains(name) {
                if let title = task["Title"]?.string { titles.insert(title) }
                if let state = task["State"]?.string, states[name]?.last != state {
                    states[name, default: []].append(state)
                }
            }
            return !install.isRunning
        }
        XCTAssertEqual(install.waitForExit(seconds: 30), 0, "\(install.lines.suffix(5))")
        let installed = packageTasks().filter { !before.contains($0.key) }
        XCTAssertEqual(installed.count, 1, "one task for the install and its retry: \(states)")
        XCTAssertEqual(installed.first?.value["State"]?.string, "finished", "\(titles)")
        XCTAssertEqual(states.values.first, ["running", "finished"], "never failed: \(states)")
        XCTAssertTrue(titles.contains("Installing packages"), "\(titles)")
        XCTAssertEqual(installed.first?.value["AppId"]?.string, "", "pkcon is no known front end")
    }

    func testACancelledTransactionEndsCancelled() throws {
        let install = try pkcon(["-y", "install", "scribus;1.3.4-1.fc8;i386;fedora"])
        XCTAssertTrue(BusConnection.pump(seconds: 30) {
            self.packageTasks().values.contains { ($0["Fraction"]?.double ?? 0) > 0.05 }
        }, "the install is under way")
        // pkcon cancels its own transaction on SIGINT (packagekitd takes Cancel only from the
        // connection that created the transaction).
        install.kill(SIGINT)
        let ended = BusConnection.pump(seconds: 30) {
            self.packageTasks().values.contains { $0["State"]?.string == "cancelled" }
        }
        XCTAssertTrue(ended, "\(packageTasks().mapValues { $0["State"]?.string ?? "" })")
    }

    func testPackagekitdExitingMidTransactionFailsTheTask() throws {
        _ = try pkcon(["-y", "install", "scribus;1.3.4-1.fc8;i386;fedora"])
        XCTAssertTrue(BusConnection.pump(seconds: 30) {
            self.packageTasks().values.contains { ($0["Fraction"]?.double ?? 0) > 0.05 }
        }, "the install is under way")
        let pidLine = try XCTUnwrap(service.lines.first { $0.hasPrefix("packagekitd-pid ") })
        kill(Int32(pidLine.dropFirst("packagekitd-pid ".count))!, SIGKILL)
        // pkcon's first transaction (only trusted packages) may have ended asking for
        // untrusted ones, its task carried on by the retry: look for the task that was
        // running when packagekitd went.
        let left = "org.freedesktop.PackageKit left the system bus while the job ran"
        let failed = BusConnection.pump(seconds: 30) {
            self.packageTasks().values.contains { $0["State"]?.string == "failed" && $0["Message"]?.string == left }
        }
        XCTAssertTrue(
            failed, "\(packageTasks().mapValues { "\($0["State"]?.string ?? ""): \($0["Message"]?.string ?? "")" })")
        XCTAssertFalse(packageTasks().values.contains { $0["State"]?.string == "running" }, "no task is left running")
    }

    func testProgressdStartedDuringATransactionPicksItUp() throws {
        XCTAssertEqual(daemon.stop(), 0)
        let install = try pkcon(["-y", "install", "scribus;1.3.4-1.fc8;i386;fedora"])
        // Under way before progressd is there: pkcon prints its percentages.
        XCTAssertNotNil(install.waitForLine(seconds: 30) { $0.contains("Percentage") && !$0.contains("\t0") })
        try startDaemon()
        client = try bus.connect()
        let picked = follow(title: "Installing packages")
        XCTAssertEqual(picked.task?["State"]?.string, "finished", "\(picked)")
        XCTAssertGreaterThanOrEqual(picked.fractions.count, 2, "\(picked.fractions)")
    }
}
