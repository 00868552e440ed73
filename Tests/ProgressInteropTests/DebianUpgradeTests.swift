import Foundation
import ProgressModel
import ProgressTestSupport
import XCTest

/// This version installed over the one before it (`make interop` builds the same tree as
/// `<version>~previous`, PROGRESSD_DEB_PREVIOUS) while a user's daemon runs, then purged
/// (helpers/upgrade-package.sh, in overlays of /usr, /etc and /var that vanish afterwards).
/// Nobody restarts the daemon: it runs the new program in its own process within seconds
/// (`ProgramWatch`), with its tasks and their bindings.
final class DebianUpgradeTests: DebianPackageTestCase {
    func testAnUpgradeKeepsTheUsersTasksAndAPurgeLeavesNothing() throws {
        let previous = try required("PROGRESSD_DEB_PREVIOUS")
        let previousVersion = ProgressVersion.current + "~previous"
        XCTAssertEqual(
            URL(fileURLWithPath: previous).lastPathComponent.split(separator: "_").dropFirst().first.map(String.init),
            previousVersion)
        let installedBefore = try run("dpkg-query", ["--show", "progressd"]).status == 0
        let result = try asInstalled(
            "overlay", ["sh", Self.helpers.appendingPathComponent("upgrade-package.sh").path, previous, deb])
        XCTAssertEqual(result.status, 0, result.output + result.errors)
        let values = keyedLines(result.output)
        let report = "\n" + result.output

        XCTAssertEqual(values["installed"], [previousVersion], report)
        XCTAssertEqual(values["before"], ["(<'\(previousVersion)'>,)"], "the old daemon served the tasks" + report)
        XCTAssertEqual(values["before-tasks"], ["running 42% / running 10%"], report)
        XCTAssertEqual(values["upgraded"], [ProgressVersion.current], report)
        XCTAssertEqual(
            values["after"], ["(<'\(ProgressVersion.current)'>,)"],
            "the running daemon answers as the new version" + report)
        XCTAssertEqual(
            values["new-daemon"], ["/usr/bin/progressd"], "it runs the new file, not the deleted one" + report)
        XCTAssertEqual(values["same-process"], ["yes"], "the daemon replaced its program, nobody restarted it" + report)
        print("the running daemon answered as \(ProgressVersion.current) "
            + "\(values["milliseconds-to-new-version"] ?? []) ms after apt")
        // The user's tasks came across through ~/.local/state/progressd, and the job's
        // `caller` task is still bound to its connection: not stalled, and a job killed
        // after the upgrade fails its task.
        XCTAssertEqual(values["after-tasks"], ["running 42% / running 10%"], report)
        XCTAssertEqual(values["doomed-after-kill"], ["failed 20%"], report)
        XCTAssertEqual(values["after-backup-title"], ["Sicherung"], report)
        XCTAssertEqual(values["state-directory"]?.first?.contains("journal-"), true, report)
        // The job's client is not lost: what it reports after the restart, and its end, arrive.
        XCTAssertEqual(values["job-after-step"]?.first?.split(separator: " ").last, "50%", report)
        XCTAssertEqual(values["job-exit"], ["0"], report)
        XCTAssertEqual(values["job-end"], ["finished 100%"], report)

        XCTAssertEqual(values["outside"] ?? [], [], "files outside /usr, or in /etc but not conffiles" + report)
        XCTAssertGreaterThan(Int(values["listed"]?.first ?? "") ?? 0, 30, report)
        // postinst's deb-systemd-helper links the user units' aliases in /etc/systemd/user.
        XCTAssertTrue(
            values["made"]?.contains("/etc/systemd/user/dbus-org.progressd.Progress1.service") == true, report)
        XCTAssertEqual(values["purged"], ["gone"], report)
        XCTAssertEqual(values["left"] ?? [], [], "what the package or its scripts made and the purge left" + report)
        XCTAssertEqual(values["done"], ["yes"], report)
        XCTAssertEqual(
            try run("dpkg-query", ["--show", "progressd"]).status == 0, installedBefore, "the machine is as it was")
    }
}
