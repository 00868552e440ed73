import Foundation
import ProgressBus
import ProgressClient
import ProgressModel
import ProgressPolicies
import ProgressTestSupport
import XCTest

/// Any connection can call the menu's Event, through org.progressd.Progress1 too, which a
/// sandboxed app may talk to: its click has the app's rights, not the daemon's.
final class TraySandboxTests: TrayTestCase {
    var app: FlatpakSandbox!

    override func setUpWithError() throws {
        try super.setUpWithError()
        app = try sandbox("org.example.Sandboxed")
    }

    func testASandboxedAppsClickOnAnotherTasksCancelIsRefused() throws {
        let watcher = try watcher()
        try start("backup", [("title", .string("Backup")), ("cancellable", .bool(true)), ("fraction", .double(0.5))])
        event(watcher, "register")
        let cancel = try XCTUnwrap(try layout().root.children.first?.children.last)
        XCTAssertEqual(cancel.label, "Cancel")
        let sandboxed = try app.connect()
        let click: [BusValue] = [.int32(cancel.id), .string("clicked"), .variant(.int32(0)), .uint32(0)]
        XCTAssertThrowsError(
            try sandboxed.call(BusNames.busName, "/MenuBar", Self.menuInterface, "Event", click)) { error in
            XCTAssertTrue("\(error)".contains("AccessDenied"), "\(error)")
        }
        let requested = try client.call(
            BusNames.busName, BusNames.taskPath(try TaskName("backup")), BusNames.propertiesInterface, "Get",
            [.string(BusNames.taskInterface), .string("CancelRequested")]).first?.bool
        XCTAssertEqual(requested, false, "the host's task was not touched")
    }
}
