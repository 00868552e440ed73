import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// A sandboxed app as Flatpak makes one: bwrap with a .flatpak-info at its root and
/// xdg-dbus-proxy inside it (`--filter --talk=org.progressd.Progress1`). Its clients are
/// confined to their own tasks, their app id is forced, and its many connections are one
/// identity. Skips only when bwrap itself can not start a sandbox in this machine.
final class SandboxTests: DaemonTestCase {
    override var daemonArguments: [String] { ["--max-tasks-per-caller", "10"] }
    var app: FlatpakSandbox!
    var otherApp: FlatpakSandbox!
    var sandboxed: BusConnection!

    override func setUpWithError() throws {
        try super.setUpWithError()
        app = try sandbox("org.example.Sandboxed")
        otherApp = try sandbox("org.example.Other")
        sandboxed = try app.connect()
    }

    override func tearDown() {
        sandboxed = nil
        super.tearDown()
    }

    func testTheAppsIdIsForcedAndItDrivesItsOwnTasks() throws {
        let path = try start("download", [("title", .string("Downloading"))], on: sandboxed)
        XCTAssertEqual(path, BusNames.managerPath + "/tasks/download")
        XCTAssertEqual(try property("download", "AppId"), .string("org.example.Sandboxed"), "omitted: forced")
        // Another connection of the app (another client behind the same proxy) is the app.
        let second = try app.connect()
        try manager("SetFraction", [.string("download"), .double(0.5)], on: second)
        try manager(
            "Update", [.string("download"), .vardict([("app-id", .string("org.example.Sandboxed"))])], on: second)
        try manager("Finish", [.string("download")], on: sandboxed)
        XCTAssertEqual(try property("download", "State"), .string("finished"))
        try manager("Remove", [.string("download")], on: sandboxed)

        assertBusError(
            "AccessDenied",
            "app-id 'org.gnome.Nautilus' is refused: connection \(sandboxed.uniqueName) is the Flatpak app "
                + "'org.example.Sandboxed', whose tasks carry app-id 'org.example.Sandboxed'"
        ) { try self.start("spoof", [("app-id", .string("org.gnome.Nautilus"))], on: self.sandboxed) }
        XCTAssertEqual(try manager("List").first?.strings, [], "the refused Start created nothing")
        XCTAssertEqual(
            try manager("Aggregate", [.string("org.gnome.Nautilus")], on: sandboxed)
                .first?.dictionary?["active"]?.integer, 0,
            "no task of another app's id")
    }

    func testTheAppIsDeniedTheHostsTasksAndAnotherAppsTasks() throws {
        try start("backup", [("title", .string("Backup")), ("cancellable", .bool(true))])
        for (method, arguments) in [
            ("SetFraction", [BusValue.string("backup"), .double(0.9)]), ("Finish", [.string("backup")]),
            ("Fail", [.string("backup"), .string("no")]), ("Remove", [.string("backup")]),
            ("RequestCancel", [.string("backup")]), ("Update", [.string("backup"), .vardict([])]),
            ("Start", [.string("backup"), .vardict([])]),
        ] {
            assertBusError(
                "AccessDenied",
                "task 'backup' belongs to the host (the user's unconfined processes); only the host may"
            ) { try self.manager(method, arguments, on: self.sandboxed) }
        }
        XCTAssertEqual(try property("backup", "State"), .string("running"))
        XCTAssertEqual(try property("backup", "CancelRequested"), .bool(false))
        // Reads are not confined: the app reads the host's task.
        XCTAssertEqual(
            try sandboxed.call(
                BusNames.busName, BusNames.taskPath(try TaskNameText.name("backup")), BusNames.propertiesInterface,
                               "Get", [.string(BusNames.taskInterface), .string("Title")]).first?.unboxed,
            .string("Backup"))

        let other = try otherApp.connect()
        try start("theirs", on: other)
        XCTAssertEqual(try property("theirs", "AppId"), .string("org.example.Other"))
        assertBusError(
            "AccessDenied",
            "task 'theirs' belongs to the Flatpak app 'org.example.Other'; only the Flatpak app "
                + "'org.example.Other' and the host may finish it, and connection \(sandboxed.uniqueName) "
                + "is the Flatpak app 'org.example.Sandboxed'"
        ) { try self.manager("Finish", [.string("theirs")], on: self.sandboxed) }
        // The host may act on an app's task.
        try manager("Finish", [.string("theirs")])
    }

    /// 64 connections through the proxy are one identity, for tasks and for subscriptions.
    func testTheAppsConnectionsCountAsOneIdentity() throws {
        let connections = try (0..<64).map { _ in try app.connect() }
        var started = 0
        var subscribed = 0
        var refusals: Set<String> = []
        for (index, connection) in connections.enumerated() {
            for result in connection.callAll(
                BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Start",
                [[.string("task \(index)"), .vardict([])]]) {
                if case .failure(let error) = result { refusals.insert(error.message) } else { started += 1 }
            }
            for result in connection.callAll(
                BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Subscribe",
                Array(repeating: [.vardict([])], count: 16)) {
                if case .failure(let error) = result { refusals.insert(error.message) } else { subscribed += 1 }
            }
        }
        XCTAssertEqual(started, 10, "--max-tasks-per-caller 10 for the whole app")
        XCTAssertEqual(subscribed, 16)
        XCTAssertEqual(refusals, [
            "the Flatpak app 'org.example.Sandboxed' has started 10 tasks; "
                + "the limit per process (a sandboxed app is one) is 10",
            "the Flatpak app 'org.example.Sandboxed' holds 16 subscriptions; "
                + "the limit per process (a sandboxed app is one) is 16",
        ])
        // The host, and another app, still start and subscribe.
        try start("host job")
        try manager("Subscribe", [.vardict([])])
        let other = try otherApp.connect()
        try start("other job", on: other)
        try manager("Subscribe", [.vardict([])], on: other)
    }
}
