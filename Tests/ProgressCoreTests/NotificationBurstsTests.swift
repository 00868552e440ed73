@testable import ProgressPolicies
import XCTest

/// Issue 22, case 4: outcomes close together are one burst per app, bounded.
final class NotificationBurstsTests: XCTestCase {
    func testOutcomesWithinTheWindowAreOneBurstPerApp() {
        var bursts = NotificationBursts(windowMicros: 5_000_000)
        XCTAssertEqual(bursts.add(failed: true, title: "Backup", appId: "a", now: 0), .alone(app: "a"))
        XCTAssertEqual(bursts.add(failed: true, title: "Sync", appId: "a", now: 1_000), .summary(app: "a"))
        XCTAssertEqual(bursts.add(failed: false, title: "Copy", appId: "a", now: 4_000_000), .summary(app: "a"))
        XCTAssertEqual(
            bursts.add(failed: true, title: "Mail", appId: "b", now: 4_000_000), .alone(app: "b"), "each app its own")
        let a = bursts.burst("a")
        XCTAssertEqual(a?.failed, 2)
        XCTAssertEqual(a?.failedTitles, ["Backup", "Sync"])
        XCTAssertEqual(a?.finished, 1)
        // Each outcome keeps the burst open for another window; a quiet window ends it.
        XCTAssertEqual(bursts.add(failed: true, title: "Late", appId: "a", now: 8_999_000), .summary(app: "a"))
        XCTAssertEqual(bursts.add(failed: true, title: "New", appId: "a", now: 14_000_000), .alone(app: "a"))
        XCTAssertNil(bursts.burst("b"), "b's burst ended")
    }

    func testTitlesAndAppsAreBoundedAndEveryOutcomeCounted() {
        var bursts = NotificationBursts()
        for index in 0..<1_000 { _ = bursts.add(failed: true, title: "T\(index)", appId: "a", now: Int64(index)) }
        XCTAssertEqual(bursts.burst("a")?.failed, 1_000)
        XCTAssertEqual(bursts.burst("a")?.failedTitles.count, NotificationBursts.maxTitlesNamed)
        for index in 1..<20 { _ = bursts.add(failed: true, title: "X", appId: "app\(index)", now: 2_000) }
        let own = (1..<20).filter { bursts.burst("app\($0)") != nil }.count
        XCTAssertEqual(own, NotificationBursts.maxApps - 1, "a, and seven more apps with their own")
        XCTAssertEqual(bursts.burst("")?.failed, 19 - own, "the others share the burst without an app")
    }
}
