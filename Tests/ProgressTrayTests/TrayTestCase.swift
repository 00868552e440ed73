import Foundation
import ProgressBus
import ProgressClient
import ProgressModel
import ProgressTestSupport
import XCTest

/// The daemon fixture, whose client plays the tray's host, and the fake
/// StatusNotifierWatcher of helpers/ (written from the XML progressd embeds).
class TrayTestCase: DaemonTestCase {

    static let itemInterface = "org.kde.StatusNotifierItem"
    static let menuInterface = "com.canonical.dbusmenu"
    static let watcherScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("helpers/status-notifier-watcher.py").path
    static let xmlPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/ProgressTray/org.kde.StatusNotifierItem.xml").path

    /// The item's name: progressd's pid (it runs itself again with exec, keeping its pid).
    var itemName: String { "org.kde.StatusNotifierItem-\(daemon.process.processIdentifier)-1" }

    /// A watcher on the bus, once it owns the name.
    func watcher(replacing: Bool = false) throws -> HelperProcess {
        let helper = try HelperProcess(
            "/usr/bin/python3", [Self.watcherScript, Self.xmlPath] + (replacing ? ["--replace"] : []),
            environment: bus.environment, readsCommands: true)
        helpers.append(helper)
        let owner = event(helper, "ready")?["owner"] as? String
        XCTAssertTrue(BusConnection.pump(seconds: 10) { self.nameOwner("org.kde.StatusNotifierWatcher") == owner })
        return helper
    }

    /// The JSON lines a helper printed of `kind`.
    func events(_ helper: HelperProcess, _ kind: String) -> [[String: Any]] {
        helper.lines.compactMap { line in
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return object?["event"] as? String == kind ? object : nil
        }
    }

    @discardableResult
    func event(
        _ helper: HelperProcess, _ kind: String, count: Int = 1, file: StaticString = #filePath, line: UInt = #line
    ) -> [String: Any]? {
        let reached = BusConnection.pump(seconds: 10) { self.events(helper, kind).count >= count }
        if !reached {
            XCTFail("no \(kind) event #\(count); the helper printed \(helper.lines.suffix(6))", file: file, line: line)
        }
        return reached ? events(helper, kind)[count - 1] : nil
    }

    /// A property of the item (or, with `interface`, of its menu at /MenuBar).
    func itemProperty(_ name: String, interface: String = TrayTestCase.itemInterface) throws -> BusValue {
        let path = interface == Self.itemInterface ? "/StatusNotifierItem" : "/MenuBar"
        return try client.call(
            itemName, path, "org.freedesktop.DBus.Properties", "Get", [.string(interface), .string(name)])
            .first!.unboxed
    }

    func menu(_ method: String, _ arguments: [BusValue]) throws -> [BusValue] {
        try client.call(itemName, "/MenuBar", Self.menuInterface, method, arguments)
    }

    /// The tooltip's title and text.
    func toolTip() throws -> (title: String, text: String) {
        guard case .tuple(let fields) = try itemProperty("ToolTip"), fields.count == 4 else {
            throw TestSupportError("ToolTip is not (sa(iiay)ss)")
        }
        return (fields[2].string ?? "", fields[3].string ?? "")
    }

    /// Pumps until the tooltip satisfies `condition`.
    func waitForToolTip(file: StaticString = #filePath, line: UInt = #line, _ condition: (String, String) -> Bool) {
        var last: (String, String)?
        let reached = BusConnection.pump(seconds: 10) {
            last = try? toolTip()
            return last.map { condition($0.0, $0.1) } ?? false
        }
        XCTAssertTrue(reached, "the tooltip is \(String(describing: last))", file: file, line: line)
    }

    /// `(id, label, enabled, children)` for each entry of a GetLayout reply's layout.
    struct MenuEntry {
        let id: Int32
        let properties: [String: BusValue]
        let children: [MenuEntry]
        var label: String? { properties["label"]?.string }

        init(_ value: BusValue) throws {
            guard case .tuple(let fields) = value.unboxed, fields.count == 3, case .int32(let id) = fields[0] else {
                throw TestSupportError("not a (ia{sv}av): \(value)")
            }
            self.id = id
            properties = fields[1].dictionary ?? [:]
            children = try (fields[2].array ?? []).map { try MenuEntry($0) }
        }
    }

    func layout() throws -> (revision: UInt32, root: MenuEntry) {
        let reply = try menu("GetLayout", [.int32(0), .int32(-1), .array(elementType: "s", [])])
        guard case .uint32(let revision) = reply[0] else {
            throw TestSupportError("GetLayout's revision is \(reply[0])")
        }
        return (revision, try MenuEntry(reply[1]))
    }
}
