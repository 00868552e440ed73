import Foundation
import ProgressTestSupport
import XCTest

/// progressd's GNOME Shell extension for 45 and later in Debian 13's real GNOME Shell 48,
/// inside a throwaway copy of the Debian 13 root with the Debian 13 package installed by apt
/// (Debian13System): the shell, its helpers, the client and progressd are the root's, on this
/// test's private bus; the extension is the one the package installed for every user.
/// GnomeShellTestCase says what it checks, as it does for 43.
final class GnomeShell48InteropTests: GnomeShellTestCase {
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

    /// The package's progressd, inside the root.
    override var daemonCommand: [String]? { debian13?.command("/usr/bin/progressd") }

    func testTheRingTheMenuAndCancelInGnomeShell48() throws {
        let version =
            try debian13.map { try $0.run("/usr/bin/gnome-shell", ["--version"], environment: [:]).output } ?? ""
        XCTAssertTrue(version.hasPrefix("GNOME Shell 48."), version)
        try checkTheRingTheMenuAndCancel()
    }
}
