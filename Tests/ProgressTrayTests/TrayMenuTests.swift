import Foundation
import ProgressBus
import ProgressClient
import ProgressModel
import ProgressPolicies
import ProgressTestSupport
import XCTest

/// The tooltip and the com.canonical.dbusmenu menu, read and clicked as a host does.
final class TrayMenuTests: TrayTestCase {
    func testTheMenuHasAnEntryPerTaskAndItsCancelReachesTheJob() throws {
        let watcher = try watcher()
        try start("copy", [
            ("title", .string("Copying photos")), ("fraction", .double(0.42)), ("cancellable", .bool(true)),
            ("pausable", .bool(true)),
        ])
        try start("scan", [("title", .string("Scanning")), ("indeterminate", .bool(true))])
        try start("copy/part", [("parent", .string("copy")), ("fraction", .double(0.42))])
        event(watcher, "register")
        let (_, root) = try layout()
        XCTAssertEqual(root.id, 0)
        XCTAssertEqual(root.properties["children-display"]?.string, "submenu")
        XCTAssertEqual(
            root.children.map(\.label), ["Copying photos — 42%", "Scanning: in progress"], "top-level tasks only")
        let copy = root.children[0]
        XCTAssertEqual(copy.children.map(\.label), ["Pause", "Cancel"])
        XCTAssertTrue(root.children[1].children.isEmpty, "no actions the task does not allow")

        // Depth 0 is the entry alone; GetGroupProperties reads entries by id.
        let shallow = try MenuEntry(
            try menu("GetLayout", [.int32(copy.id), .int32(0), .array(elementType: "s", [])])[1])
        XCTAssertTrue(shallow.children.isEmpty)
        let group = try menu(
            "GetGroupProperties",
            [.array(elementType: "i", [.int32(copy.id)]), .array(elementType: "s", [.string("label")])])
        XCTAssertEqual(group.first?.description, "[(\(copy.id), {'label': <'Copying photos — 42%'>})]")
        XCTAssertEqual(try menu("AboutToShow", [.int32(0)]).first?.bool, false)
        XCTAssertThrowsError(try menu("Event", [.int32(9999), .string("clicked"), .variant(.string("")), .uint32(0)]))

        // The job hears a click on Cancel as RequestCancel.
        let job = try bus.connect()
        var requests: [String] = []
        job.subscribe(path: BusNames.taskPath(try TaskName("copy"))) { signal in
            if signal.interface == BusNames.taskInterface { requests.append(signal.member) }
        }
        var layoutUpdates = 0
        client.subscribe(sender: itemName, interface: Self.menuInterface, member: "LayoutUpdated") { _ in
            layoutUpdates += 1
        }
        let cancel = try XCTUnwrap(copy.children.last)
        try menu("Event", [.int32(cancel.id), .string("clicked"), .variant(.int32(0)), .uint32(0)])
        XCTAssertTrue(BusConnection.pump(seconds: 10) { requests.contains("CancelRequested") }, "\(requests)")
        XCTAssertEqual(try client.call(
            BusNames.busName, BusNames.taskPath(try TaskName("copy")), BusNames.propertiesInterface, "Get",
            [.string(BusNames.taskInterface), .string("CancelRequested")]).first?.bool, true)
        // The menu says so: Cancel is greyed, after a LayoutUpdated.
        XCTAssertTrue(BusConnection.pump(seconds: 10) { layoutUpdates >= 1 })
        XCTAssertEqual(try layout().root.children[0].children.last?.properties["enabled"]?.bool, false)

        // EventGroup, as libdbusmenu sends clicks: Pause reaches the job too.
        let pause = try XCTUnwrap(copy.children.first)
        let errors = try menu("EventGroup", [.array(elementType: "(isvu)", [
            .tuple([.int32(pause.id), .string("clicked"), .variant(.int32(0)), .uint32(0)]),
            .tuple([.int32(4242), .string("clicked"), .variant(.int32(0)), .uint32(0)]),
        ])])
        XCTAssertEqual(errors.first?.array?.compactMap(\.integer), [4242])
        XCTAssertTrue(BusConnection.pump(seconds: 10) { requests.contains("PauseRequested") }, "\(requests)")
    }

    func testTheToolTipNamesTheTasksWithTheirTextMadeSafe() throws {
        let watcher = try watcher()
        try start("a", [("title", .string("Photos <b>&</b>")), ("fraction", .double(0.25))])
        try start("b", [("title", .string("גיבוי")), ("fraction", .double(0.75))])
        event(watcher, "register")
        waitForToolTip { title, _ in title == "2 tasks, 50 percent overall" }
        let (_, text) = try toolTip()
        let lines = text.components(separatedBy: "\n")
        XCTAssertEqual(lines.count, 2)
        XCTAssertTrue(lines[0].hasPrefix("Photos &lt;b&gt;&amp;&lt;/b&gt;"), "markup escaped: \(lines[0])")
        XCTAssertTrue(lines[1].hasPrefix("\u{2068}גיבוי\u{2069}"), "right-to-left title isolated: \(lines[1])")
        // In the menu the Hebrew title is isolated too, so " — 75 %" keeps its place.
        XCTAssertEqual(
            try layout().root.children.map(\.label), ["Photos <b>&</b> — 25%", "\u{2068}גיבוי\u{2069} — 75%"])
    }
}

/// The daemon's locale: the tooltip and the percents in German.
final class TrayLocaleTests: TrayTestCase {
    override var daemonEnvironment: [String: String] { ["LC_ALL": "de_DE.UTF-8", "LANGUAGE": "de"] }

    func testTheToolTipIsInTheDaemonsLocale() throws {
        let watcher = try watcher()
        try start("copy", [("title", .string("Fotos")), ("fraction", .double(0.42))])
        event(watcher, "register")
        waitForToolTip { title, _ in !title.isEmpty }
        let (title, text) = try toolTip()
        XCTAssertFalse(title.contains("percent"), title)
        XCTAssertFalse(text.contains("percent"), text)
        XCTAssertTrue(text.contains("Fotos"), text)
        // German puts a no-break space before the percent sign.
        XCTAssertEqual(try layout().root.children.first?.label, "Fotos — 42\u{A0}%")
    }

    func testTheMenusRequestsAreInTheDaemonsLocale() throws {
        let watcher = try watcher()
        try start("copy", [
            ("title", .string("Fotos")), ("fraction", .double(0.42)), ("cancellable", .bool(true)),
            ("pausable", .bool(true)),
        ])
        event(watcher, "register")
        XCTAssertEqual(try layout().root.children.first?.children.map(\.label), ["Anhalten", "Abbrechen"])
    }
}
