import Foundation
import ProgressAccessibility
import ProgressBus
import ProgressClient
import ProgressModel
import ProgressTestSupport
import XCTest

/// What pyatspi lists: the application, its bars, their values, states, extents and places.
final class AccessibilityTreeTests: AccessibilityTestCase {
    func testDeterminateTaskIsAProgressBarWithTitleValueStatesAndExtent() throws {
        try start("backup", [("title", .string("Backing up")),
                             ("completed", .uint64(42)), ("total", .uint64(100)), ("unit", .string("files"))])
        let tree = try treeWith("backup")
        XCTAssertEqual(tree["role"] as? Int, 75, "the root is an application")
        XCTAssertEqual(tree.name, "progressd")
        let bar = try XCTUnwrap(tree.bar("backup"))
        XCTAssertEqual(bar["role"] as? Int, 42, "role progress bar")
        XCTAssertEqual(bar.name, "Backing up", "Name is the title")
        XCTAssertEqual(bar["description"] as? String, "42 of 100 files", "Description is the Detail")
        XCTAssertEqual(bar.value["current"] as? Double, 42)
        XCTAssertEqual(bar.value["minimum"] as? Double, 0)
        XCTAssertEqual(bar.value["maximum"] as? Double, 100)
        XCTAssertEqual(bar.value["text"] as? String, try accessibleText("backup"), "the value's text is AccessibleText")
        XCTAssertFalse((bar.value["text"] as? String ?? "").isEmpty)
        for state in ["visible", "showing", "enabled", "sensitive", "busy"] {
            XCTAssertTrue(bar.states.contains(state), "state \(state) in \(bar.states)")
        }
        XCTAssertFalse(bar.states.contains("indeterminate"))
        let extents = try XCTUnwrap(bar["extents"] as? [String: [Int]])
        for (coordinates, box) in extents {
            XCTAssertGreaterThan(box[2], 0, "\(coordinates) width")
            XCTAssertGreaterThan(box[3], 0, "\(coordinates) height")
        }
        XCTAssertEqual(bar["index"] as? Int, 0, "GetIndexInParent is right (Orca calls -1 a zombie)")
        XCTAssertEqual(Set(bar["interfaces"] as? [String] ?? []), ["Accessible", "Value", "Component"])
        let attributes = try XCTUnwrap(bar["attributes"] as? [String: String])
        XCTAssertEqual(attributes["task-name"], "backup")
        XCTAssertEqual(attributes["state"], "running")
    }

    func testIndeterminateTaskHasTheIndeterminateStateAndNoValue() throws {
        try start("scan", [("title", .string("Scanning")), ("indeterminate", .bool(true))])
        let bar = try XCTUnwrap(try treeWith("scan").bar("scan"))
        XCTAssertTrue(bar.states.contains("indeterminate"), "\(bar.states)")
        XCTAssertEqual(bar.value["current"] as? Double, 0, "no current value while indeterminate")
    }

    func testChildTaskSitsUnderItsParentAndNameFallsBackToTheTaskName() throws {
        try start("build", [("title", .string("Building"))])
        try start("build/compile", [("parent", .string("build")), ("fraction", .double(0.5))])
        try start("other")
        let tree = try treeWith("build/compile")
        let parent = try XCTUnwrap(tree.children.first { $0.name == "Building" })
        XCTAssertEqual(
            parent.children.map(\.name), ["build/compile"], "the child's bar is the parent's child; no title: its name")
        XCTAssertEqual(parent.children.first?["index"] as? Int, 0)
        XCTAssertEqual(tree.children.count, 2, "the root holds the two top-level tasks only")
        XCTAssertEqual(tree.children.map { $0["index"] as? Int }, [0, 1])
    }

    func testRemovingATaskRemovesItsBarAndListenersHearChildrenChanged() throws {
        try start("first")
        try start("second", [("title", .string("Second"))])
        _ = try treeWith("second")
        let listener = try tool.listen(["object:children-changed"])
        try manager("Remove", [.string("first")])
        let tree = try tool.tree(within: 20) { $0.bar("first") == nil }
        XCTAssertNil(tree.bar("first"), "the removed task's bar is gone")
        XCTAssertEqual(tree.bar("second")?["index"] as? Int, 0, "the sibling moved up")
        try start("third")
        _ = try treeWith("third")
        let events = try listener.finish()
        let removes = events.filter { ($0["type"] as? String)?.hasPrefix("object:children-changed:remove") == true }
        let adds = events.filter { ($0["type"] as? String)?.hasPrefix("object:children-changed:add") == true }
        XCTAssertEqual(removes.count, 1, "one remove: \(events)")
        XCTAssertEqual(removes.first?["detail1"] as? Int, 0, "at the index the bar had")
        XCTAssertEqual(removes.first?["sourceRole"] as? Int, 75, "sent on the parent, the application")
        XCTAssertEqual(adds.count, 1, "one add, for the new task: \(events)")
        XCTAssertEqual(adds.first?["detail1"] as? Int, 1)
    }

    /// What the bus introspects on the root and a bar is the module's XML, interface by interface.
    /// Issue 39: Cache.GetItems, which Orca calls at start to fill its cache, did not apply
    /// the values the front door holds for a task that updates frequently.
    func testTheCacheShowsAValueHeldAMomentAgo() throws {
        try start("copy", [("title", .string("Copy")), ("total", .uint64(1_000_000)), ("unit", .string("bytes")),
                           ("updates-frequently", .bool(true))])
        _ = try treeWith("copy")
        let accessibility = try BusConnection(address: try a11y.address())
        let names = try accessibility.call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "ListNames")
            .first?.strings ?? []
        let daemonName = try XCTUnwrap(names.first { name in
            let pid = try? accessibility.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                              "GetConnectionUnixProcessID", [.string(name)]).first?.unboxed
            return name.hasPrefix(":") && pid == .uint32(UInt32(daemon.process.processIdentifier))
        })
        try manager("SetFraction", [.string("copy"), .double(0.4)])
        let items = try accessibility.call(daemonName, "/org/a11y/atspi/cache", "org.a11y.atspi.Cache", "GetItems")
            .first?.array ?? []
        // Each item (a((so)(so)(so)iiassusau)): itself, its application, its parent, its
        // index, its child count, interfaces, name, role, description, states.
        func fields(_ item: BusValue) -> [BusValue] { if case .tuple(let fields) = item.unboxed { fields } else { [] } }
        let copy = try XCTUnwrap(items.map(fields).first { $0.count == 10 && $0[6].string == "Copy" }, "\(items)")
        XCTAssertEqual(copy[8].string, "400 kB of 1 MB")
    }

    func testIntrospectionMatchesTheShippedXML() throws {
        try start("job")
        _ = try treeWith("job")
        let shipped = try IntrospectionXML.parse(AtspiInterfaces.xml).interfaces
        let connection = try BusConnection(address: try a11y.address())
        let owner = try XCTUnwrap(daemonUniqueName(on: connection))
        func introspect(_ path: String) throws -> [String: String] {
            let xml = try connection.call(owner, path, "org.freedesktop.DBus.Introspectable", "Introspect")
                .first?.string ?? ""
            return try IntrospectionXML.parse(xml).interfaces.filter { $0.key.hasPrefix("org.a11y.atspi.") }
        }
        let root = try introspect("/org/a11y/atspi/accessible/root")
        XCTAssertEqual(Set(root.keys), [AtspiInterfaces.accessible, AtspiInterfaces.application])
        let children = try connection.call(
            owner, "/org/a11y/atspi/accessible/root", AtspiInterfaces.accessible, "GetChildren")
        let reference = children.first?.array?.first
        guard case .tuple(let parts)? = reference else { return XCTFail("GetChildren gave no reference: \(children)") }
        let barPath = try XCTUnwrap(parts.last?.string)
        let bar = try introspect(barPath)
        XCTAssertEqual(Set(bar.keys), [AtspiInterfaces.accessible, AtspiInterfaces.value, AtspiInterfaces.component])
        let cache = try introspect("/org/a11y/atspi/cache")
        for (name, xml) in root.merging(bar, uniquingKeysWith: { a, _ in a })
            .merging(cache, uniquingKeysWith: { a, _ in a }) {
            XCTAssertEqual(xml, shipped[name], "\(name) as served is as shipped")
        }
        XCTAssertEqual(Set(shipped.keys),
                       Set(root.keys).union(bar.keys).union(cache.keys).union([AtspiInterfaces.objectEvents.interface]),
                       "every shipped interface is served, but for the events' one, which is only sent")
    }

    /// Bad calls on the accessibility bus get the standard errors, and the session bus is still served.
    func testBadCallsGetStandardErrorsAndTheDaemonKeepsServing() throws {
        try start("job")
        _ = try treeWith("job")
        let connection = try BusConnection(address: try a11y.address())
        let owner = try XCTUnwrap(daemonUniqueName(on: connection))
        func error(_ path: String, _ interface: String, _ method: String, _ arguments: [BusValue] = []) -> String? {
            do {
                try connection.call(owner, path, interface, method, arguments)
                return nil
            } catch {
                return error.name
            }
        }
        XCTAssertEqual(error("/org/a11y/atspi/accessible/999", AtspiInterfaces.accessible, "GetRole"),
                       "org.freedesktop.DBus.Error.UnknownMethod",
                       "no object there (GDBus's answer for an unknown subtree node)")
        XCTAssertEqual(error("/org/a11y/atspi/accessible/root", AtspiInterfaces.accessible, "GetChildAtIndex",
                             [.string("x")]),
                       "org.freedesktop.DBus.Error.InvalidArgs")
        XCTAssertEqual(error("/org/a11y/atspi/accessible/root", AtspiInterfaces.accessible, "GetChildAtIndex",
                             [.int32(7)]),
                       "org.freedesktop.DBus.Error.InvalidArgs", "out of range")
        XCTAssertEqual(error("/org/a11y/atspi/accessible/root", AtspiInterfaces.accessible, "Frobnicate"),
                       "org.freedesktop.DBus.Error.UnknownMethod")
        XCTAssertNotNil(try manager("List").first?.strings)
    }

    func daemonUniqueName(on connection: BusConnection) throws -> String? {
        let names = try connection.call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "ListNames")
            .first?.strings ?? []
        let pid = UInt32(daemon.process.processIdentifier)
        return names.first { name in
            guard name.hasPrefix(":"), let reply = try? connection.call(
                "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionUnixProcessID",
                [.string(name)])
            else { return false }
            if case .uint32(let owner) = reply.first?.unboxed { return owner == pid }
            return false
        }
    }
}
