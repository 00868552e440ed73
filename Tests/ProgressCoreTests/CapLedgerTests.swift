@testable import ProgressModel
@testable import ProgressCore
import XCTest

/// The one ledger of caps: each resource counted per identity, refused with a message that
/// names the identity and the cap, released back to nothing.
final class CapLedgerTests: XCTestCase {
    func testEachResourceHasItsCapPerIdentityAndIdentitiesAreApart() throws {
        var limits = Limits()
        limits.maxJobViewsPerCaller = 2
        limits.maxSubscriptions = 3
        let ledger = CapLedger(limits: limits)
        let process = ChargeKey.process(100)
        let app = ChargeKey.owner(.flatpak("org.example.App"))
        try ledger.charge(.jobView, to: process)
        try ledger.charge(.jobView, to: process)
        XCTAssertThrowsError(try ledger.charge(.jobView, to: process)) { error in
            XCTAssertEqual(
                (error as? ProgressError)?.message,
                "process 100 holds 2 live KDE job views; the limit per process (a sandboxed app is one) is 2")
        }
        try ledger.charge(.jobView, to: app)
        try ledger.charge(.task, to: process)
        XCTAssertEqual(ledger.held(.jobView, by: process), 2)
        XCTAssertEqual(ledger.held(.task, by: process), 1, "resources are counted apart")

        for _ in 0..<3 { try ledger.charge(.subscription, to: app) }
        XCTAssertThrowsError(try ledger.charge(.subscription, to: process)) { error in
            XCTAssertEqual((error as? ProgressError)?.message, "the daemon holds 3 subscriptions; the limit is 3")
        }

        ledger.release(.jobView, from: process)
        try ledger.charge(.jobView, to: process)
        for _ in 0..<5 { ledger.release(.jobView, from: process) }
        XCTAssertEqual(ledger.held(.jobView, by: process), 0, "never below nothing")
        XCTAssertEqual(ledger.total(.jobView), 1, "the app's view is still held")
    }
}
