import Foundation
import ProgressClient
import ProgressTestSupport
import XCTest

/// UDisks2's jobs and systemd-importd's transfers through fakes written from their real
/// introspection XML (helpers/): a real udisksd needs loop devices and udev, and a real
/// importd systemd as PID 1 and /var/lib/machines, none of which a test machine has.
final class DiskAndImageFakeTests: SystemJobTestCase {
    static let udisksRoot = "/org/freedesktop/UDisks2"
    static let job = "org.freedesktop.UDisks2.Job"

    func udisksd() throws -> HelperProcess {
        let fake = try fake("org.freedesktop.UDisks2",
                            [Self.helpers.appendingPathComponent("org.freedesktop.UDisks2.Job.xml").path],
                            manager: Self.udisksRoot)
        send(fake, ["op": "set", "path": Self.udisksRoot + "/block_devices/sdb1",
                    "interface": "org.freedesktop.UDisks2.Block",
                    "props": ["IdLabel": ["s", "Backup"], "PreferredDevice": ["ay", "/dev/sdb1"]]])
        send(fake, ["op": "set", "path": Self.udisksRoot + "/drives/WD_Blue",
                    "interface": "org.freedesktop.UDisks2.Drive",
                    "props": ["Vendor": ["s", "WD "], "Model": ["s", "Blue"]]])
        return fake
    }

    func job(_ fake: HelperProcess, _ number: Int, _ props: [String: [Any]]) {
        send(fake, ["op": "set", "path": "\(Self.udisksRoot)/jobs/\(number)", "interface": Self.job, "props": props])
    }

    func completed(_ fake: HelperProcess, _ number: Int, _ success: Bool, _ message: String) {
        send(fake, ["op": "signal", "path": "\(Self.udisksRoot)/jobs/\(number)", "interface": Self.job,
                    "member": "Completed", "sig": "(bs)", "args": [success, message]])
    }

    func testAnEraseShowsItsBytesAndACancelGoesToUDisks() throws {
        let fake = try udisksd()
        job(fake, 1, ["Operation": ["s", "format-erase"], "Objects": ["ao", [Self.udisksRoot + "/block_devices/sdb1"]],
                      "StartedByUID": ["u", uid], "Cancelable": ["b", true]])
        try startDaemon()
        let started = waitFor("system/udisks2/1") { $0["Title"]?.string == "Erasing Backup" }
        XCTAssertEqual(started?["Indeterminate"]?.bool, true, "Progress is not valid yet")
        XCTAssertEqual(started?["Cancellable"]?.bool, true)
        job(fake, 1, ["Progress": ["d", 0.25], "ProgressValid": ["b", true], "Bytes": ["t", 4000]])
        let moving = waitFor("system/udisks2/1") { $0["Completed"]?.uint64 == 1000 }
        XCTAssertEqual(moving?["Total"]?.uint64, 4000)
        XCTAssertEqual(moving?["Unit"]?.string, "bytes")
        XCTAssertEqual(moving?["Fraction"]?.double, 0.25)

        // polkit refuses: the refusal is the task's message and the request is withdrawn.
        send(fake, ["op": "answer", "member": "Cancel", "error": "org.freedesktop.UDisks2.Error.NotAuthorizedCanObtain",
                    "message": "Not authorized to perform operation"])
        XCTAssertNil(call("RequestCancel", "system/udisks2/1"))
        let refused = waitFor("system/udisks2/1") { $0["Message"]?.string == "Not authorized to perform operation" }
        XCTAssertEqual(refused?["State"]?.string, "running")
        XCTAssertEqual(refused?["CancelRequested"]?.bool, false, "a refused request is no longer standing")
        XCTAssertEqual(calls(fake, "Cancel"), 1)

        // Asking again calls udisksd again (the user may have got the right meanwhile).
        send(fake, ["op": "answer", "member": "Cancel", "error": "org.freedesktop.UDisks2.Error.NotAuthorizedDismissed",
                    "message": "Authentication dismissed"])
        XCTAssertNil(call("RequestCancel", "system/udisks2/1"))
        let again = waitFor("system/udisks2/1") { $0["Message"]?.string == "Authentication dismissed" }
        XCTAssertEqual(again?["CancelRequested"]?.bool, false)
        XCTAssertEqual(calls(fake, "Cancel"), 2)
        completed(fake, 1, false, "Error erasing device: Input/output error")
        XCTAssertEqual(
            waitForState("system/udisks2/1", "failed")?["Message"]?.string, "Error erasing device: Input/output error")
        XCTAssertEqual(calls(fake, "Cancel"), 2)

        // Allowed: udisksd cancels the job, which then completes unsuccessfully: cancelled.
        send(fake, ["op": "unanswer", "member": "Cancel"])
        job(fake, 5, ["Operation": ["s", "format-erase"], "StartedByUID": ["u", uid], "Cancelable": ["b", true]])
        waitFor("system/udisks2/5") { $0["Cancellable"]?.bool == true }
        XCTAssertNil(call("RequestCancel", "system/udisks2/5"))
        XCTAssertTrue(BusConnection.pump(seconds: 10) { self.calls(fake, "Cancel") == 3 }, "Job.Cancel({}) was called")
        completed(fake, 5, false, "Operation was cancelled")
        waitForState("system/udisks2/5", "cancelled")
    }

    func testOutcomesAndOtherUsersJobs() throws {
        let fake = try udisksd()
        try startDaemon()
        job(fake, 2, ["Operation": ["s", "ata-smart-selftest"],
                      "Objects": ["ao", [Self.udisksRoot + "/drives/WD_Blue"]],
                      "StartedByUID": ["u", uid], "Progress": ["d", 0.5], "ProgressValid": ["b", true]])
        job(fake, 3, ["Operation": ["s", "format-mkfs"], "StartedByUID": ["u", uid + 1]])
        job(
            fake, 4,
            ["Operation": ["s", "filesystem-resize"], "Objects": ["ao", [Self.udisksRoot + "/block_devices/sdb1"]]])
        let test = waitFor("system/udisks2/2") { $0["Title"]?.string == "Testing WD Blue" }
        XCTAssertEqual(test?["Cancellable"]?.bool, false)
        XCTAssertNil(
            call("RequestCancel", "system/udisks2/2").flatMap { $0.contains("NotAllowed") ? nil : $0 },
            "not Cancelable")
        waitFor("system/udisks2/4") { $0["Title"]?.string == "Resizing Backup" }
        XCTAssertNil(task("system/udisks2/3"), "another user's job")
        completed(fake, 2, true, "")
        waitForState("system/udisks2/2", "finished")
        send(fake, ["op": "remove", "path": Self.udisksRoot + "/jobs/4"])
        let dropped = waitForState("system/udisks2/4", "failed")
        XCTAssertEqual(dropped?["Message"]?.string, "udisksd dropped the job without a result")
    }

    /// A label or a service's message is client text like any other: an override or isolate
    /// it opens is closed within it, so it can not reorder what a consumer puts after it.
    func testABidiControlFromTheSystemBusIsClosedWithinItsText() throws {
        let fake = try udisksd()
        send(fake, ["op": "set", "path": Self.udisksRoot + "/block_devices/sdc1",
                    "interface": "org.freedesktop.UDisks2.Block",
                    "props": ["IdLabel": ["s", "\u{202E}kcab"], "PreferredDevice": ["ay", "/dev/sdc1"]]])
        try startDaemon()
        job(fake, 6, ["Operation": ["s", "format-erase"], "Objects": ["ao", [Self.udisksRoot + "/block_devices/sdc1"]],
                      "StartedByUID": ["u", uid]])
        XCTAssertNotNil(
            waitFor("system/udisks2/6") { $0["Title"]?.string == "Erasing \u{202E}kcab\u{202C}" },
            "the override closed")
        completed(fake, 6, false, "\u{2067}failed")
        XCTAssertEqual(
            waitForState("system/udisks2/6", "failed")?["Message"]?.string, "\u{2067}failed\u{2069}",
            "the isolate closed")
    }

    // MARK: systemd-importd

    func importd() throws -> HelperProcess {
        let fake = try fake(
            "org.freedesktop.import1", [Self.helpers.appendingPathComponent("org.freedesktop.import1.xml").path])
        send(fake, ["op": "set", "path": "/org/freedesktop/import1", "interface": "org.freedesktop.import1.Manager",
                    "props": [:]])
        return fake
    }

    func transfer(_ fake: HelperProcess, _ id: Int, _ props: [String: [Any]]) {
        send(fake, ["op": "set", "path": "/org/freedesktop/import1/transfer/_\(id)",
                    "interface": "org.freedesktop.import1.Transfer", "props": props])
    }

    func testATransfersProgressIsPolledAndACancelReachesImportd() throws {
        let fake = try importd()
        try startDaemon()
        transfer(fake, 3, ["Id": ["u", 3], "Type": ["s", "pull-raw"], "Local": ["s", "fedora"],
                           "Remote": ["s", "https://example.org/fedora.raw.xz"], "Progress": ["d", 0.1]])
        send(fake, ["op": "signal", "path": "/org/freedesktop/import1", "interface": "org.freedesktop.import1.Manager",
                    "member": "TransferNew", "sig": "(uo)", "args": [3, "/org/freedesktop/import1/transfer/_3"]])
        let started = waitFor("system/importd/3") { $0["Title"]?.string == "Downloading image fedora" }
        XCTAssertEqual(started?["Message"]?.string, "https://example.org/fedora.raw.xz")
        XCTAssertEqual(started?["Cancellable"]?.bool, true)
        // Progress emits no signal (EmitsChangedSignal false): only polling sees it.
        for progress in [0.3, 0.6] {
            transfer(fake, 3, ["Progress": ["d", progress]])
            waitFor("system/importd/3") { $0["Fraction"]?.double == progress }
        }
        // A refusal withdraws the request, and the next one calls importd again.
        send(fake, ["op": "answer", "member": "Cancel", "error": "org.freedesktop.DBus.Error.AccessDenied",
                    "message": "Access denied"])
        XCTAssertNil(call("RequestCancel", "system/importd/3"))
        let refused = waitFor("system/importd/3") { $0["Message"]?.string == "Access denied" }
        XCTAssertEqual(refused?["CancelRequested"]?.bool, false)
        send(fake, ["op": "unanswer", "member": "Cancel"])
        XCTAssertNil(call("RequestCancel", "system/importd/3"))
        XCTAssertTrue(
            BusConnection.pump(seconds: 10) { self.calls(fake, "Cancel") == 2 }, "Transfer.Cancel() was called again")
        XCTAssertEqual(task("system/importd/3")?["CancelRequested"]?.bool, true)
        send(fake, ["op": "signal", "path": "/org/freedesktop/import1", "interface": "org.freedesktop.import1.Manager",
                    "member": "TransferRemoved", "sig": "(uos)",
                    "args": [3, "/org/freedesktop/import1/transfer/_3", "canceled"]])
        waitForState("system/importd/3", "cancelled")
    }

    func testTransfersRunningAtStartAreReadAndEndWithTheirResult() throws {
        let fake = try importd()
        transfer(
            fake, 5, ["Id": ["u", 5], "Type": ["s", "import-tar"], "Local": ["s", "debian"], "Progress": ["d", 0.5]])
        transfer(fake, 6, ["Id": ["u", 6], "Type": ["s", "export-raw"], "Local": ["s", "arch"], "Progress": ["d", 0.2]])
        try startDaemon()
        waitFor("system/importd/5") { $0["Title"]?.string == "Importing image debian" && $0["Fraction"]?.double == 0.5 }
        waitFor("system/importd/6") { $0["Title"]?.string == "Exporting image arch" }
        for (id, result, state) in [(5, "done", "finished"), (6, "failed", "failed")] {
            send(fake, ["op": "remove", "path": "/org/freedesktop/import1/transfer/_\(id)"])
            send(fake, ["op": "signal", "path": "/org/freedesktop/import1",
                        "interface": "org.freedesktop.import1.Manager", "member": "TransferRemoved", "sig": "(uos)",
                        "args": [id, "/org/freedesktop/import1/transfer/_\(id)", result]])
            waitForState("system/importd/\(id)", state)
        }
    }
}
