import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// A private bus and a fresh daemon for each test, with a client and a listener connection.
open class DaemonTestCase: XCTestCase {
    public var bus: PrivateBus!
    public var daemon: DaemonProcess!
    public var client: BusConnection!
    public var listener: BusConnection!
    /// Extra daemon flags for a test class.
    open var daemonArguments: [String] { [] }
    /// Extra environment for the daemon.
    open var daemonEnvironment: [String: String] { [:] }

    open override func setUpWithError() throws {
        bus = try PrivateBus()
        daemon = try DaemonProcess(bus: bus, arguments: daemonArguments, environment: daemonEnvironment)
        client = try bus.connect()
        listener = try bus.connect()
    }

    open override func tearDown() {
        client = nil
        listener = nil
        if let daemon {
            let status = daemon.stop()
            XCTAssertEqual(status, 0, "progressd exits 0 on SIGTERM")
        }
        daemon = nil
        bus?.stop()
        bus = nil
    }

    // MARK: Calls

    @discardableResult
    public func manager(_ method: String, _ arguments: [BusValue] = [], on connection: BusConnection? = nil) throws -> [BusValue] {
        try (connection ?? client).call(
            BusNames.busName, BusNames.managerPath, BusNames.managerInterface, method, arguments)
    }

    @discardableResult
    public func start(_ name: String, _ options: [(String, BusValue)] = [], on connection: BusConnection? = nil) throws -> String {
        try manager("Start", [.string(name), .vardict(options)], on: connection).first?.string ?? ""
    }

    public func property(_ name: String, _ property: String) throws -> BusValue {
        let path = BusNames.taskPath(try TaskNameText.name(name))
        return try client.call(
            BusNames.busName, path, BusNames.propertiesInterface, "Get",
            [.string(BusNames.taskInterface), .string(property)]
        ).first!.unboxed
    }

    public func properties(_ name: String) throws -> [String: BusValue] {
        let path = BusNames.taskPath(try TaskNameText.name(name))
        return try client.call(
            BusNames.busName, path, BusNames.propertiesInterface, "GetAll", [.string(BusNames.taskInterface)]
        ).first?.dictionary ?? [:]
    }

    /// Asserts that `body` fails with the progressd error `name` and a message containing `fragment`.
    public func assertBusError(
        _ name: String, _ fragment: String, file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Void
    ) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            guard let error = error as? BusCallError else { return XCTFail("\(error)", file: file, line: line) }
            XCTAssertEqual(error.name, BusNames.errorPrefix + name, error.message, file: file, line: line)
            XCTAssertTrue(error.message.contains(fragment), "'\(error.message)' lacks '\(fragment)'", file: file, line: line)
        }
    }

    // MARK: Signals

    /// Records the PropertiesChanged signals of one task object, in arrival order.
    public final class PropertiesRecorder {
        public var changes: [[String: BusValue]] = []
        public var arrivals: [Double] = []
        public func values(_ property: String) -> [BusValue] { changes.compactMap { $0[property] } }
    }

    public func recordProperties(of name: String) throws -> PropertiesRecorder {
        let recorder = PropertiesRecorder()
        let path = BusNames.taskPath(try TaskNameText.name(name))
        listener.subscribe(interface: BusNames.propertiesInterface, member: "PropertiesChanged", path: path) { signal in
            recorder.changes.append(signal.arguments[1].dictionary ?? [:])
            recorder.arrivals.append(Date().timeIntervalSinceReferenceDate)
        }
        // The subscription's match rule must reach the bus before the test acts.
        try listener.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId")
        return recorder
    }
}

import ProgressCore

public enum TaskNameText {
    public static func name(_ text: String) throws -> TaskName { try TaskName(text) }
    public static func decode(_ pathElement: String) -> String? { TaskName(pathElement: pathElement)?.text }
}
