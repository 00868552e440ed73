import Foundation
import ProgressBus
import ProgressClient
import ProgressModel
import ProgressTestSupport
import XCTest

/// The KDE bridge acts with the identity of the process behind each view: a sandboxed app
/// (bwrap with a .flatpak-info, xdg-dbus-proxy inside) can not request a view for another
/// app, and one process's many connections can not fill what other applications need.
final class JobViewIdentityTests: KDETestCase {
    let server = "org.kde.JobViewServer"

    override func setUpWithError() throws {
        try super.setUpWithError()
        let daemonName = try daemonUniqueName()
        XCTAssertTrue(BusConnection.pump(seconds: 10) { self.nameOwner(self.server) == daemonName })
    }

    private func requestView(_ entry: String, on connection: BusConnection) throws -> String {
        try connection.call(
            server, "/JobViewServer", "org.kde.JobViewServerV2", "requestView",
            [.string(entry), .int32(0), .vardict([])]
        ).first?.string ?? ""
    }

    private func taskNames() throws -> [String] { try manager("List").first?.strings ?? [] }

    func testASandboxedAppCannotRequestAViewForAnotherApp() throws {
        let app = try sandbox("org.example.Sandboxed", talk: server)
        let sandboxed = try app.connect()
        XCTAssertThrowsError(try requestView("org.victim.App", on: sandboxed)) { error in
            XCTAssertEqual((error as? BusCallError)?.name, "org.progressd.Progress1.Error.AccessDenied", "\(error)")
            XCTAssertTrue(
                (error as? BusCallError)?.message.contains(
                    "app-id 'org.victim.App' is refused: connection \(sandboxed.uniqueName) "
                        + "is the Flatpak app 'org.example.Sandboxed'") == true,
                "\(error)")
        }
        XCTAssertEqual(try taskNames().filter { $0.hasPrefix("kde/") }, [], "the refused view started nothing")

        // Its own view works, and its job is the app's.
        let path = try requestView("org.example.Sandboxed", on: sandboxed)
        try sandboxed.call(server, path, "org.kde.JobViewV2", "setPercent", [.uint32(50)])
        let name = try XCTUnwrap(try taskNames().first { $0.hasPrefix("kde/org.example.Sandboxed/") })
        waitForProperty(name, "Fraction", .double(0.5))
        XCTAssertEqual(try property(name, "AppId"), .string("org.example.Sandboxed"))
        // Another connection of the app is the app: refused too, and not logged again.
        XCTAssertThrowsError(try requestView("org.victim.App", on: try app.connect()), "refused again")

        let log = daemon.stopAndReadErrors()
        daemon = nil
        XCTAssertEqual(
            log.components(separatedBy: "KDE job view refused for").count - 1, 1, "logged once per app: \(log)")
    }

    /// Ten connections of one process ask for 100 views each: the process holds 100 (its
    /// cap), and Dolphin, another process, still gets its view.
    func testOneProcessWithManyConnectionsCannotLockOtherAppsOut() throws {
        let connections = try (0..<10).map { _ in try bus.connect() }
        var granted = 0
        var refusals: Set<String> = []
        for connection in connections {
            for result in connection.callAll(
                server, "/JobViewServer", "org.kde.JobViewServerV2", "requestView",
                Array(repeating: [.string("org.example.Flood"), .int32(0), .vardict([])], count: 100)) {
                switch result {
                case .success: granted += 1
                case .failure(let error): refusals.insert("\(error.name): \(error.message)")
                }
            }
        }
        let pid = ProcessInfo.processInfo.processIdentifier
        XCTAssertEqual(granted, Limits().maxJobViewsPerCaller, "the process's cap, whatever its connections")
        XCTAssertEqual(refusals, [
            "org.freedesktop.DBus.Error.LimitsExceeded: process \(pid) holds 100 live KDE job views; "
                + "the limit per process (a sandboxed app is one) is 100",
        ])
        let dolphin = try requestViewFromAnotherProcess("org.kde.dolphin")
        XCTAssertTrue(dolphin.hasPrefix("(objectpath '/org/progressd/kde/JobView_"), dolphin)
    }
}
