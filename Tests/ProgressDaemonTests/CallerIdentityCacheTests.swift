import Foundation
import ProgressModel
@testable import ProgressDaemon
import XCTest

/// The adapter's identity rules on their own: Snap labels, a process's sandbox from /proc,
/// and the NFC the daemon hands Core.
final class CallerIdentityCacheTests: XCTestCase {
    func testASnapIsTheNameInItsAppArmorLabel() {
        XCTAssertEqual(CallerIdentityCache.snapName(fromLabel: "snap.firefox.firefox (enforce)"), "firefox")
        XCTAssertEqual(CallerIdentityCache.snapName(fromLabel: "snap.vlc.hook.configure (complain)"), "vlc")
        XCTAssertNil(CallerIdentityCache.snapName(fromLabel: "unconfined"))
        XCTAssertNil(CallerIdentityCache.snapName(fromLabel: "/usr/bin/evince (enforce)"))
        XCTAssertNil(CallerIdentityCache.snapName(fromLabel: "snap."))
    }

    func testThisProcessIsTheHostAndAGoneProcessIsUnknown() {
        XCTAssertEqual(CallerIdentityCache.sandbox(ofProcess: UInt32(ProcessInfo.processInfo.processIdentifier)), .host)
        // Above the kernel's pid_max (4194304 at most): no such process.
        XCTAssertNil(CallerIdentityCache.sandbox(ofProcess: 4_194_305), "a process that is gone proves nothing")
    }

    /// A caller gone before it was read is logged at the first and at each doubling.
    func testCallersGoneBeforeTheyWereReadAreLoggedAtPowersOfTwo() {
        XCTAssertEqual((0...20).filter(CallerIdentityCache.isLogged), [1, 2, 4, 8, 16])
    }

    func testNamesReachCoreInNFC() {
        XCTAssertEqual(Array(DaemonContext.nfc("cafe\u{301}").utf8), Array("caf\u{E9}".utf8))
        XCTAssertEqual(DaemonContext.nfc("backup"), "backup")
        XCTAssertEqual(Array(DaemonContext.nfc("\u{212B}").utf8), Array("\u{C5}".utf8), "the ångström sign is Å")
    }
}
