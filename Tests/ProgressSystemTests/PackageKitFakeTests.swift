import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// PackageKit's transactions through a fake packagekitd that serves Debian's own
/// org.freedesktop.PackageKit*.xml and behaves as 1.2.6 does: GetTransactionList,
/// TransactionListChanged, PropertiesChanged, ErrorCode, Finished and Destroy, and an abort
/// on a Properties.Get of RemainingTime.
final class PackageKitFakeTests: SystemJobTestCase {
    static let transaction = "org.freedesktop.PackageKit.Transaction"

    func packagekitd() throws -> HelperProcess {
        let fake = try fake("org.freedesktop.PackageKit", [
            Self.installedInterfaces + "org.freedesktop.PackageKit.xml",
            Self.installedInterfaces + "org.freedesktop.PackageKit.Transaction.xml",
        ])
        send(fake, ["op": "set", "path": "/org/freedesktop/PackageKit", "interface": "org.freedesktop.PackageKit",
                    "props": ["BackendName": ["s", "dummy"]]])
        return fake
    }

    func transaction(_ fake: HelperProcess, _ path: String, _ props: [String: [Any]]) {
        send(fake, ["op": "set", "path": path, "interface": Self.transaction, "props": props])
    }

    func listChanged(_ fake: HelperProcess, _ paths: [String]) {
        send(fake, ["op": "signal", "path": "/org/freedesktop/PackageKit", "interface": "org.freedesktop.PackageKit",
                    "member": "TransactionListChanged", "sig": "(as)", "args": [paths]])
    }

    func signal(_ fake: HelperProcess, _ path: String, _ member: String, _ sig: String, _ args: [Any]) {
        send(
            fake,
            ["op": "signal", "path": path, "interface": Self.transaction, "member": member, "sig": sig, "args": args])
    }

    func testARefreshBecomesATaskWhoseFractionRisesAndThatEndsFinished() throws {
        let fake = try packagekitd()
        try startDaemon()
        transaction(
            fake, "/1_aaaa", ["Role": ["u", 13], "Status": ["u", 7], "Percentage": ["u", 101], "Uid": ["u", uid]])
        listChanged(fake, ["/1_aaaa"])
        let started = waitFor("system/packagekit/1_aaaa") { $0["Title"]?.string == "Refreshing software sources" }
        XCTAssertEqual(started?["Indeterminate"]?.bool, true, "101 means unknown")
        XCTAssertEqual(started?["Lifetime"]?.string, "persistent")
        XCTAssertEqual(
            started?["Cancellable"]?.bool, false, "packagekitd lets only the transaction's creator cancel it")
        for percent in [10, 20, 30] {
            transaction(fake, "/1_aaaa", ["Percentage": ["u", percent]])
            waitFor("system/packagekit/1_aaaa") {
                $0["Fraction"]?.double == Double(percent) / 100 && $0["Indeterminate"]?.bool == false
            }
        }
        transaction(fake, "/1_aaaa", ["LastPackage": ["s", "scribus;1.3.4-1.fc8;i386;fedora"], "Status": ["u", 8]])
        waitFor("system/packagekit/1_aaaa") { $0["Message"]?.string == "scribus 1.3.4-1.fc8" }
        signal(fake, "/1_aaaa", "Finished", "(uu)", [1, 5000])
        waitForState("system/packagekit/1_aaaa", "finished")
        signal(fake, "/1_aaaa", "Destroy", "()", [])
        XCTAssertTrue(
            BusConnection.pump(seconds: 10) { task("system/packagekit/1_aaaa") == nil }, "Destroy removes the task")
        XCTAssertTrue(fake.isRunning, "never a Properties.Get of RemainingTime (it aborts packagekitd 1.2.6)")
        XCTAssertEqual(calls(fake, "Get"), 0)
    }

    func testOutcomesUsersAndQueries() throws {
        let fake = try packagekitd()
        // Already running when progressd starts: GetTransactionList finds them.
        transaction(
            fake, "/2_fail", ["Role": ["u", 11], "Status": ["u", 9], "Percentage": ["u", 40], "Uid": ["u", uid]])
        transaction(
            fake, "/3_cancel", ["Role": ["u", 22], "Status": ["u", 10], "Percentage": ["u", 5], "Uid": ["u", uid]])
        transaction(
            fake, "/4_other", ["Role": ["u", 22], "Status": ["u", 10], "Percentage": ["u", 5], "Uid": ["u", uid + 1]])
        transaction(
            fake, "/5_query", ["Role": ["u", 21], "Status": ["u", 4], "Percentage": ["u", 5], "Uid": ["u", uid]])
        try startDaemon()
        waitFor("system/packagekit/2_fail") {
            $0["Title"]?.string == "Installing packages" && $0["Fraction"]?.double == 0.4
        }
        waitFor("system/packagekit/3_cancel") { $0["Title"]?.string == "Installing updates" }
        XCTAssertNil(task("system/packagekit/4_other"), "another user's transaction shows only with --system-jobs all")
        XCTAssertNil(task("system/packagekit/5_query"), "a search is no task")
        signal(fake, "/2_fail", "ErrorCode", "(us)", [27, "Cannot download packages whilst offline"])
        signal(fake, "/2_fail", "Finished", "(uu)", [2, 300])
        let failed = waitForState("system/packagekit/2_fail", "failed")
        XCTAssertEqual(failed?["Message"]?.string, "Cannot download packages whilst offline")
        signal(fake, "/3_cancel", "Finished", "(uu)", [3, 300])
        waitForState("system/packagekit/3_cancel", "cancelled")
    }

    /// pkcon's install as packagekitd 1.2.6 with the dummy backend runs it: the first
    /// transaction (trusted packages only) ends asking for untrusted ones (exit 8), and
    /// pkcon answers with a new transaction of the same role. One task, never failed.
    func testATransactionItsFrontEndRetriesIsOneTask() throws {
        let fake = try packagekitd()
        try startDaemon()
        let pkcon = [
            "Role": ["u", 11], "Status": ["u", 9], "Percentage": ["u", 0], "Uid": ["u", uid], "Sender": ["s", ":1.42"],
        ] as [String: [Any]]
        transaction(fake, "/10_trusted", pkcon)
        listChanged(fake, ["/10_trusted"])
        waitFor("system/packagekit/10_trusted") { $0["Title"]?.string == "Installing packages" }
        signal(fake, "/10_trusted", "ErrorCode", "(us)", [37, "Can't install as untrusted"])
        signal(fake, "/10_trusted", "Finished", "(uu)", [8, 100])
        let waiting = waitFor("system/packagekit/10_trusted") { $0["Message"]?.string == "Can't install as untrusted" }
        XCTAssertEqual(waiting?["State"]?.string, "running", "a question is no failure")

        transaction(fake, "/11_untrusted", pkcon.merging(["Percentage": ["u", 10]]) { $1 })
        listChanged(fake, ["/10_trusted", "/11_untrusted"])
        waitFor("system/packagekit/10_trusted") { $0["Fraction"]?.double == 0.1 }
        signal(fake, "/10_trusted", "Destroy", "()", [])
        transaction(fake, "/11_untrusted", ["Percentage": ["u", 60]])
        let carried = waitFor("system/packagekit/10_trusted") { $0["Fraction"]?.double == 0.6 }
        XCTAssertEqual(carried?["State"]?.string, "running", "the first transaction's Destroy leaves the retry's task")
        XCTAssertNil(task("system/packagekit/11_untrusted"), "the retry carries on the first task")
        signal(fake, "/11_untrusted", "Finished", "(uu)", [1, 9000])
        waitForState("system/packagekit/10_trusted", "finished")
        XCTAssertEqual(
            try client.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "List", [])
                .first?.strings,
            ["system/packagekit/10_trusted"])

        // Asked and not retried (the user said no, the front end quit): failed, with the
        // question, once the window has passed.
        transaction(fake, "/12_refused", pkcon.merging(["Sender": ["s", ":1.43"]]) { $1 })
        listChanged(fake, ["/12_refused"])
        waitFor("system/packagekit/12_refused") { $0["Title"]?.string == "Installing packages" }
        signal(fake, "/12_refused", "Finished", "(uu)", [8, 100])
        let asked = waitFor("system/packagekit/12_refused") {
            $0["Message"]?.string == "PackageKit: untrusted packages are needed"
        }
        XCTAssertEqual(asked?["State"]?.string, "running", "waiting for a retry")
        let refused = waitFor("system/packagekit/12_refused", seconds: 30) { $0["State"]?.string == "failed" }
        XCTAssertEqual(refused?["Message"]?.string, "PackageKit: untrusted packages are needed")
    }

    func testEveryUsersTransactionsWithSystemJobsAll() throws {
        let fake = try packagekitd()
        transaction(
            fake, "/4_other", ["Role": ["u", 14], "Status": ["u", 6], "Percentage": ["u", 50], "Uid": ["u", uid + 1]])
        try startDaemon(["--system-jobs", "all"])
        waitFor("system/packagekit/4_other") { $0["Title"]?.string == "Removing packages" }
    }

    func testNoSessionClientChangesATransactionsTask() throws {
        let fake = try packagekitd()
        transaction(
            fake, "/6_mine", ["Role": ["u", 22], "Status": ["u", 10], "Percentage": ["u", 50], "Uid": ["u", uid]])
        try startDaemon()
        waitFor("system/packagekit/6_mine") { $0["Fraction"]?.double == 0.5 }
        for (method, extra) in [
            ("Update", [BusValue.vardict([("fraction", .double(1))])]), ("SetFraction", [.double(1)]),
            ("Finish", []), ("Fail", [.string("no")]), ("Remove", []),
        ] {
            let error = call(method, "system/packagekit/6_mine", extra)
            XCTAssertTrue(
                error?.hasPrefix("org.progressd.Progress1.Error.AccessDenied") == true,
                "\(method): \(error ?? "accepted")")
        }
        let squat = call("Start", "system/packagekit/7_next", [.vardict([])])
        XCTAssertTrue(squat?.hasPrefix("org.progressd.Progress1.Error.AccessDenied") == true, squat ?? "accepted")
        XCTAssertTrue(
            call("RequestCancel", "system/packagekit/6_mine")?.contains("NotAllowed") == true, "not cancellable")
        XCTAssertEqual(task("system/packagekit/6_mine")?["State"]?.string, "running")
    }

    func testPackagekitdLeavingFailsTheTaskAndItsReturnIsReadAgain() throws {
        let fake = try packagekitd()
        transaction(fake, "/8_a", ["Role": ["u", 22], "Status": ["u", 10], "Percentage": ["u", 30], "Uid": ["u", uid]])
        try startDaemon()
        waitFor("system/packagekit/8_a") { $0["Fraction"]?.double == 0.3 }
        send(fake, ["op": "release"])
        let failed = waitForState("system/packagekit/8_a", "failed")
        XCTAssertEqual(failed?["Message"]?.string, "org.freedesktop.PackageKit left the system bus while the job ran")
        transaction(fake, "/9_b", ["Role": ["u", 13], "Status": ["u", 7], "Percentage": ["u", 60], "Uid": ["u", uid]])
        send(fake, ["op": "own"])
        waitFor("system/packagekit/9_b") { $0["Fraction"]?.double == 0.6 }
    }

    /// System jobs are never kept in the journal: after a SIGKILL the bridge reads them again
    /// from the system bus, bound to their service, whose departure fails them.
    func testAJobIsReadAgainAfterARestartAndItsServiceLeavingFailsIt() throws {
        let fake = try packagekitd()
        transaction(fake, "/8_a", ["Role": ["u", 22], "Status": ["u", 10], "Percentage": ["u", 30], "Uid": ["u", uid]])
        try startDaemon()
        waitFor("system/packagekit/8_a") { $0["Fraction"]?.double == 0.3 }
        try restartDaemon(killing: true)
        waitFor("system/packagekit/8_a") { $0["Fraction"]?.double == 0.3 }
        send(fake, ["op": "release"])
        let failed = waitForState("system/packagekit/8_a", "failed")
        XCTAssertEqual(failed?["Message"]?.string, "org.freedesktop.PackageKit left the system bus while the job ran")
    }

    func testTheFlagTurnsPackageKitOff() throws {
        let fake = try packagekitd()
        try startDaemon(["--no-system-jobs-from", "packagekit"])
        let udisks = try self.fake("org.freedesktop.UDisks2",
                                   [Self.helpers.appendingPathComponent("org.freedesktop.UDisks2.Job.xml").path],
                                   manager: "/org/freedesktop/UDisks2")
        XCTAssertTrue(
            BusConnection.pump(seconds: 10) { self.calls(udisks, "GetManagedObjects") > 0 },
            "the other services are read")
        XCTAssertEqual(calls(fake, "GetTransactionList"), 0, "PackageKit is not")
    }
}
