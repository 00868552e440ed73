import Foundation
import ProgressTestSupport
import XCTest

/// progressd serving KF6's jobs (JobViewServerV2, as Plasma 6's kuiserver does) in a Debian 13
/// root with the Debian 13 package installed by apt (Debian13System): KF6's kioclient, the slow
/// web server, progressd and progressctl are the root's, on this test's private bus.
final class KF6JobInteropTests: KioclientTestCase {
    private var rootErrors: URL?

    override func setUpWithError() throws {
        rootErrors = FileManager.default.temporaryDirectory.appendingPathComponent(
            "progressd-debian13-\(UUID().uuidString).log")
        debian13 = try Debian13System(errors: try XCTUnwrap(rootErrors))
        try super.setUpWithError()
    }

    override func tearDown() {
        super.tearDown()
        debian13 = nil
        if let rootErrors { try? FileManager.default.removeItem(at: rootErrors) }
    }

    override var kioclient: String { "/usr/bin/kioclient" }
    /// The package's progressd, inside the root.
    override var daemonCommand: [String]? { debian13?.command("/usr/bin/progressd") }

    func testAKF6KioclientCopyIsATaskAndProgressctlCancelStopsIt() throws {
        let version = try XCTUnwrap(debian13).run(kioclient, ["--version"], environment: environment)
        XCTAssertTrue(
            version.output.hasPrefix("kioclient 25.") || version.output.contains(" 6."), version.output + version.errors
        )
        try checkACopyIsATaskAndProgressctlCancelStopsIt()
    }
}
