import Foundation
import ProgressBus
import ProgressClient
import ProgressCore
import XCTest

/// The one daemon fixture of every suite: a private bus, a fresh progressd on it, a client
/// and a listener connection, and helper processes, all stopped after each test. A suite
/// subclasses it and adds what its area needs (`prepareBus` for processes the daemon must
/// find at start, `tearDownPeers` to stop them). When a test fails, the tail of the
/// daemon's stderr (a file in the bus's scratch directory) is printed with it.
open class DaemonTestCase: XCTestCase {
    public var bus: PrivateBus!
    public var daemon: DaemonProcess!
    public var client: BusConnection!
    public var listener: BusConnection!
    /// Helper processes of the test, stopped before the daemon.
    public var helpers: [HelperProcess] = []
    /// Extra daemon flags for a test class.
    open var daemonArguments: [String] { [] }
    /// Extra environment for the daemon.
    open var daemonEnvironment: [String: String] { [:] }
    /// Whether setUp starts the daemon; a suite that starts it later calls `startDaemon`.
    open var startsDaemonAtSetUp: Bool { true }

    /// What the daemon needs on the bus before it starts (a fake service, a desktop file).
    open func prepareBus() throws {}

    /// Stops what `prepareBus` started, after the daemon and before the bus.
    open func tearDownPeers() {}

    open override func setUpWithError() throws {
        bus = try PrivateBus()
        try prepareBus()
        if startsDaemonAtSetUp { try startDaemon() }
        client = try bus.connect()
        listener = try bus.connect()
    }

    /// Starts progressd on the bus with the class's flags and environment, or with
    /// `arguments` and the class's environment merged with `environment`.
    @discardableResult
    public func startDaemon(_ arguments: [String]? = nil, environment: [String: String] = [:]) throws -> DaemonProcess {
        daemon = try DaemonProcess(
            bus: bus, arguments: arguments ?? daemonArguments, environment: daemonEnvironment.merging(environment) { $1 })
        return daemon
    }

    open override func tearDown() {
        for helper in helpers { helper.stop() }
        helpers.removeAll()
        client = nil
        listener = nil
        if let daemon {
            let status = daemon.stop()
            XCTAssertEqual(status, 0, "progressd exits 0 on SIGTERM")
            if testRun?.hasSucceeded == false {
                print("progressd's stderr (\(daemon.errorFile.lastPathComponent)) ended with:\n\(daemon.errorTail())")
            }
        }
        daemon = nil
        tearDownPeers()
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
        let path = BusNames.taskPath(try TaskName(name))
        return try client.call(
            BusNames.busName, path, BusNames.propertiesInterface, "Get",
            [.string(BusNames.taskInterface), .string(property)]
        ).first!.unboxed
    }

    public func properties(_ name: String) throws -> [String: BusValue] {
        let path = BusNames.taskPath(try TaskName(name))
        return try client.call(
            BusNames.busName, path, BusNames.propertiesInterface, "GetAll", [.string(BusNames.taskInterface)]
        ).first?.dictionary ?? [:]
    }

    /// Pumps until the task's property reads `expected`.
    public func waitForProperty(
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

    /// Returns once the daemon has handled every call sent before and `connection` (the
    /// listener unless given) has dispatched every signal the daemon sent before: the daemon
    /// answers a call on its main loop after what came before it, and a peer's messages
    /// reach a connection in the order sent. What a policy sends later, on a timer, is the
    /// policy's to test on a ManualClock.
    public func settle(_ connection: BusConnection? = nil) throws {
        try manager("List", on: connection ?? listener)
        BusConnection.drain()
    }

    /// Pumps until the bus no longer knows `uniqueName`: its departure has been handled by
    /// the bus, and sent on to the daemon before anything the test sends next.
    public func waitUntilGone(_ uniqueName: String, file: StaticString = #filePath, line: UInt = #line) {
        let gone = BusConnection.pump(seconds: 10) { self.nameOwner(uniqueName) == nil }
        XCTAssertTrue(gone, "\(uniqueName) left the bus", file: file, line: line)
    }

    /// A Manager method called by a `gdbus` process of its own (another client process, with
    /// gdbus's own parsing of the arguments).
    public func gdbus(_ method: String, _ arguments: String...) throws -> CommandResult {
        try CommandResult.run(
            "gdbus",
            ["call", "--session", "--dest", BusNames.busName, "--object-path", BusNames.managerPath,
             "--method", "\(BusNames.managerInterface).\(method)"] + arguments,
            environment: bus.environment)
    }

    /// The unique name that owns `name` on the bus, or nil.
    public func nameOwner(_ name: String) -> String? {
        (try? client.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner", [.string(name)]))?
            .first?.string
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
        let path = BusNames.taskPath(try TaskName(name))
        listener.subscribe(interface: BusNames.propertiesInterface, member: "PropertiesChanged", path: path) { signal in
            recorder.changes.append(signal.arguments[1].dictionary ?? [:])
            recorder.arrivals.append(Date().timeIntervalSinceReferenceDate)
        }
        // The subscription's match rule must reach the bus before the test acts.
        try listener.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId")
        return recorder
    }
}

/// Task names as the tests write them, to and from object path elements.
public enum TaskNameText {
    public static func name(_ text: String) throws -> TaskName { try TaskName(text) }
    public static func decode(_ pathElement: String) -> String? { TaskName(pathElement: pathElement)?.text }
}
