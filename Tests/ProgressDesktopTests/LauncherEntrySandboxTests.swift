import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// A sandboxed app (bwrap with a .flatpak-info, xdg-dbus-proxy inside, as Flatpak runs it)
/// sends LauncherEntry Updates: for its own id they are its bars, for another app's they
/// are refused as its Start with that app id is, and logged once.
final class LauncherEntrySandboxTests: LauncherEntryTestCase {
    var app: FlatpakSandbox!

    override func setUpWithError() throws {
        try super.setUpWithError()
        app = try sandbox("org.example.Sandboxed")
    }

    func testASandboxedAppCannotSetAnotherAppsDockProgress() throws {
        let sandboxed = try app.connect()
        let shown: [(String, BusValue)] = [("progress", .double(0.5)), ("progress-visible", .bool(true))]
        try update(sandboxed, "application://org.victim.App.desktop", shown)
        try update(sandboxed, "application://org.victim.App.desktop", [("progress-visible", .bool(false))])
        try update(sandboxed, "application://org.victim.App.desktop", shown)
        // Its own bar, sent after: once it is there, the Updates before it were handled.
        try update(sandboxed, "application://org.example.Sandboxed.desktop", shown)
        let tasks = try waitForTasks(10) { $0["launcher/org.example.Sandboxed"] != nil }
        XCTAssertEqual(tasks["launcher/org.example.Sandboxed"]?["AppId"], .string("org.example.Sandboxed"))
        XCTAssertEqual(tasks["launcher/org.example.Sandboxed"]?["Fraction"], .double(0.5))
        XCTAssertNil(tasks["launcher/org.victim.App"], "no bar for the other app")
        XCTAssertEqual(tasks.values.filter { $0["AppId"] == .string("org.victim.App") }.count, 0)
        let aggregate = try client.call(
            BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Aggregate", [.string("org.victim.App")])
        XCTAssertEqual(aggregate.first?.dictionary?["active"]?.integer, 0)

        let log = daemon.stopAndReadErrors()
        daemon = nil
        let refusals = log.components(
            separatedBy: "for org.victim.App is refused: app-id 'org.victim.App' is refused").count - 1
        XCTAssertEqual(refusals, 1, "logged once: \(log)")
        XCTAssertTrue(log.contains("is the Flatpak app 'org.example.Sandboxed'"), log)
    }
}
