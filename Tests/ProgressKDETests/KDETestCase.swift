import Foundation
import ProgressBus
import ProgressClient
import ProgressCore
import ProgressTestSupport
import XCTest

/// A private bus, progressd on it, a client connection, and the KDE helpers of this folder.
class KDETestCase: XCTestCase {
    var bus: PrivateBus!
    var daemon: DaemonProcess!
    var client: BusConnection!
    var helpers: [HelperProcess] = []

    static let helpersDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("helpers")
    static let xmlPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/ProgressKDE/org.kde.JobViews.xml").path

    override func setUpWithError() throws {
        bus = try PrivateBus()
        daemon = try DaemonProcess(bus: bus)
        client = try bus.connect()
    }

    override func tearDown() {
        for helper in helpers { helper.stop() }
        helpers.removeAll()
        client = nil
        if let daemon { XCTAssertEqual(daemon.stop(), 0, "progressd exits 0 on SIGTERM") }
        daemon = nil
        bus?.stop()
        bus = nil
    }

    /// A Python helper of this folder, with python3-dbus (Debian's /usr/bin/python3, not a pyenv one).
    func helper(_ script: String, _ arguments: [String] = [], readsCommands: Bool = true) throws -> HelperProcess {
        let helper = try HelperProcess(
            "/usr/bin/python3", [Self.helpersDirectory.appendingPathComponent(script).path] + arguments,
            environment: bus.environment, readsCommands: readsCommands)
        helpers.append(helper)
        return helper
    }

    /// The JSON events a helper printed, decoded.
    func events(_ helper: HelperProcess, _ kind: String? = nil) -> [[String: Any]] {
        helper.lines.compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            return kind == nil || object["event"] as? String == kind ? object : nil
        }
    }

    /// Waits for an event of `kind` that satisfies `condition`.
    @discardableResult
    func waitForEvent(
        _ helper: HelperProcess, _ kind: String, seconds: Double = 10, where condition: ([String: Any]) -> Bool = { _ in true },
        file: StaticString = #filePath, line: UInt = #line
    ) -> [String: Any]? {
        var found: [String: Any]?
        _ = BusConnection.pump(seconds: seconds) {
            found = events(helper, kind).first(where: condition)
            return found != nil
        }
        if found == nil { XCTFail("no \(kind) event; helper printed: \(helper.lines.suffix(8))", file: file, line: line) }
        return found
    }

    @discardableResult
    func manager(_ method: String, _ arguments: [BusValue] = []) throws -> [BusValue] {
        try client.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, method, arguments)
    }

    func start(_ name: String, _ options: [(String, BusValue)] = []) throws {
        try manager("Start", [.string(name), .vardict(options)])
    }

    func property(_ name: String, _ property: String) throws -> BusValue {
        try client.call(
            BusNames.busName, BusNames.taskPath(try TaskName(name)), BusNames.propertiesInterface, "Get",
            [.string(BusNames.taskInterface), .string(property)]
        ).first!.unboxed
    }

    /// Pumps until the task's property reads `expected`.
    func waitForProperty(
        _ name: String, _ property: String, _ expected: BusValue, seconds: Double = 10,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        var last: BusValue?
        let reached = BusConnection.pump(seconds: seconds) {
            last = try? self.property(name, property)
            return last == expected
        }
        XCTAssertTrue(reached, "\(name).\(property) is \(String(describing: last)), not \(expected)", file: file, line: line)
    }

    /// requestView from a process of its own (gdbus), which leaves at once: what it prints,
    /// the view's path or the error.
    func requestViewFromAnotherProcess(_ entry: String) throws -> String {
        let result = try CommandResult.run(
            "gdbus", ["call", "--session", "--dest", "org.kde.JobViewServer", "--object-path", "/JobViewServer",
                      "--method", "org.kde.JobViewServerV2.requestView", entry, "3", "{}"],
            environment: bus.environment)
        return (result.output + result.errors).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func nameOwner(_ name: String) -> String? {
        (try? client.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner", [.string(name)]))?
            .first?.string
    }

    func daemonUniqueName() throws -> String {
        let reply = try client.call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner", [.string(BusNames.busName)])
        return reply.first?.string ?? ""
    }
}
