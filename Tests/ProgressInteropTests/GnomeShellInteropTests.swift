import Foundation
import ProgressTestSupport
import XCTest

/// progressd's GNOME Shell extension (its 43/44 form, .build/gnome-shell-43) in Debian 12's real
/// GNOME Shell 43 on this machine (GnomeShellTestCase says how it runs and what it checks).
final class GnomeShellInteropTests: GnomeShellTestCase {
    func testTheRingTheMenuAndCancelInARealShell() throws {
        try checkTheRingTheMenuAndCancel()
    }
}
