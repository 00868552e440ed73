import ProgressClient
import ProgressTestSupport
import XCTest

/// `--no-kde-jobs` turns the KDE bridge off: progressd neither serves nor watches the job view names.
final class KDEFlagTests: DaemonTestCase {
    override var daemonArguments: [String] { ["--no-kde-jobs"] }

    func testNoKDEJobsLeavesTheNamesAlone() throws {
        // The bridge asks for its names as the daemon starts, before it serves a call.
        try settle(client)
        for name in ["org.kde.JobViewServer", "org.kde.kuiserver"] {
            XCTAssertNil(nameOwner(name), name)
        }
    }
}
