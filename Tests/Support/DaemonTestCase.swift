import Foundation
import ProgressBus
import ProgressClient
import ProgressModel
import XCTest

/// The one daemon fixture of every suite: a private bus, a fresh progressd on it, a client
/// and a listener connection, and helper processes, all stopped after each test. A suite
/// subclasses it and adds what its area needs (`prepareBus` for processes the daemon must
/// find at start, `tearDownPeers` to stop them). When a test fails, the tail of the
/// daemon's stderr (a file in the bus's scratch directory) is printed with it.
///
/// Options, each an override: the daemon's flags and environment, whether setUp starts the
/// daemon (or even the bus: a class whose tests mostly need neither starts them in the
/// tests that do, with `startDaemon`), D-Bus activation files the bus may start services
/// from, of the test's own too (`busServiceDirectory`), a bus every user may use. In a test:
/// another bus (`extraBus`, a system bus with `system: true`), a sandboxed app (`sandbox`),
/// a restart (`restartDaemon`), a daemon that exits on its own (`daemonExited`), a bus
/// that goes away (`stopBus`) and a new one (`startBus`); and `waitForMarker`, `settle` and
/// `waitUntilGone`, which prove by order, not by waiting, that what came before was handled.
open class DaemonTestCase: XCTestCase {
    public var bus: PrivateBus!
    public var daemon: DaemonProcess!
    public var client: BusConnection!
    public var listener: BusConnection!
    /// Helper processes of the test, stopped before the daemon.
    public var helpers: [HelperProcess] = []
    /// Sandboxes of the test, stopped before the daemon.
    private var sandboxes: [FlatpakSandbox] = []
    /// Buses of the test beside `bus`, stopped after it.
    private var extraBuses: [PrivateBus] = []
    /// Scratch directories of the test (activation files), removed after the bus.
    private var scratchDirectories: [URL] = []
    /// The environment the running daemon was started with beyond the class's, for a restart.
    private var startedEnvironment: [String: String] = [:]
    /// Extra daemon flags for a test class.
    open var daemonArguments: [String] { [] }
    /// Extra environment for the daemon.
    open var daemonEnvironment: [String: String] { [:] }
    /// Another progressd than the build's, with what runs it (DaemonProcess's `command`).
    open var daemonCommand: [String]? { nil }
    /// Whether setUp starts the daemon; a suite that starts it later calls `startDaemon`.
    open var startsDaemonAtSetUp: Bool { true }
    /// Whether setUp starts the bus (and the connections) at all; without it, `startDaemon`
    /// starts them first.
    open var startsBusAtSetUp: Bool { true }
    /// Services under dbus/ (`org.progressd.Renderer1`) the bus may start by activation,
    /// from their files as `make install` writes them, with this build's programs.
    open var activatableServices: [String] { [] }

    /// Whether processes of any user may use the bus (a compositor that refuses root).
    open var busAllowsEveryUser: Bool { false }
    /// A directory of D-Bus activation files of the test's own (another project's services),
    /// made before the bus; the files of `activatableServices` are added to it.
    open func busServiceDirectory() throws -> URL? { nil }

    /// What the daemon needs on the bus before it starts (a fake service, a desktop file).
    open func prepareBus() throws {}

    /// Stops what `prepareBus` started, after the daemon and before the bus.
    open func tearDownPeers() {}

    open override func setUpWithError() throws {
        guard startsBusAtSetUp else { return }
        try startBus()
        if startsDaemonAtSetUp { try startDaemon() }
    }

    /// Starts the bus, runs `prepareBus` and connects the client and the listener. The bus may
    /// start the services `activating` (the class's `activatableServices` unless given) from
    /// the programs in `bindir` (this build's unless given). A bus the test stopped is
    /// replaced; the daemon is not started.
    public func startBus(activating services: [String]? = nil, bindir: URL? = nil) throws {
        if let bus { extraBuses.append(bus) }
        var serviceDirectory = try busServiceDirectory()
        let services = services ?? activatableServices
        if !services.isEmpty {
            let directory = serviceDirectory ?? Scratch.directory("progressd-services")
            if serviceDirectory == nil {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                scratchDirectories.append(directory)
            }
            for service in services { try Self.installActivationFile(service, in: directory, bindir: bindir) }
            serviceDirectory = directory
        }
        bus = try PrivateBus(serviceDirectory: serviceDirectory, everyUser: busAllowsEveryUser)
        try prepareBus()
        client = try bus.connect()
        listener = try bus.connect()
    }

    /// Writes `dbus/<service>.service` into `directory`, its program being this build's.
    public static func installActivationFile(_ service: String, in directory: URL, bindir: URL? = nil) throws {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let bin = bindir ?? BuildProducts.url(of: "progressd").deletingLastPathComponent()
        try String(contentsOf: root.appendingPathComponent("dbus/\(service).service"), encoding: .utf8)
            .replacingOccurrences(of: "@bindir@", with: bin.path)
            .write(to: directory.appendingPathComponent("\(service).service"), atomically: true, encoding: .utf8)
    }

    /// Starts progressd on the bus (starting the bus first if there is none) with the class's
    /// flags and environment, or with `arguments` and the class's environment merged with
    /// `environment`. A daemon still running is stopped first, and must exit 0; one the test
    /// stopped or killed is replaced.
    @discardableResult
    public func startDaemon(_ arguments: [String]? = nil, environment: [String: String] = [:]) throws -> DaemonProcess {
        if bus == nil { try startBus() }
        if let daemon, daemon.process.isRunning { XCTAssertEqual(daemon.stop(), 0, "progressd exits 0 on SIGTERM") }
        daemon = nil
        startedEnvironment = environment
        daemon = try DaemonProcess(
            bus: bus, arguments: arguments ?? daemonArguments,
            environment: daemonEnvironment.merging(environment) { $1 }, command: daemonCommand)
        return daemon
    }

    /// Stops the daemon (with SIGTERM, and it must exit 0; with SIGKILL when `killing`) and
    /// starts it again on the same bus with the same flags and state directory.
    @discardableResult
    public func restartDaemon(
        killing: Bool = false, file: StaticString = #filePath, line: UInt = #line
    ) throws -> DaemonProcess {
        let running = try XCTUnwrap(daemon, "a daemon to restart", file: file, line: line)
        if killing {
            running.kill()
        } else {
            XCTAssertEqual(running.stop(), 0, "progressd exits 0 on SIGTERM", file: file, line: line)
        }
        daemon = nil
        daemon = try DaemonProcess(
            bus: bus, arguments: running.arguments, environment: daemonEnvironment.merging(startedEnvironment) { $1 },
            command: running.command)
        return daemon
    }

    /// Waits for the daemon to exit on its own and returns its status (nil if it is still
    /// running after `seconds`), with what it wrote to stderr; the fixture then has no daemon
    /// to stop.
    public func daemonExited(seconds: Double = 20) -> (status: Int32?, errors: String) {
        guard let running = daemon else { return (nil, "") }
        let status = running.waitForExit(seconds: seconds)
        if status != nil { daemon = nil }
        return (status, running.errors)
    }

    /// Stops the bus (the daemon then loses it); the connections go with it.
    public func stopBus() {
        client = nil
        listener = nil
        bus?.stop()
    }

    /// A second private bus for the test (a system bus with `system`), stopped after the
    /// test's bus.
    public func extraBus(system: Bool = false, socket: URL? = nil) throws -> PrivateBus {
        let extra = try PrivateBus(system: system, socket: socket)
        extraBuses.append(extra)
        return extra
    }

    /// A sandboxed app on the bus (FlatpakSandbox), allowed to talk to `talk`, stopped after
    /// the test. Where bwrap can make no sandbox the test skips, and under CI it fails.
    public func sandbox(_ appId: String, talk: String = BusNames.busName) throws -> FlatpakSandbox {
        try FlatpakSandbox.requireSandbox()
        let sandbox = try FlatpakSandbox(appId: appId, busAddress: bus.address, talk: talk)
        sandboxes.append(sandbox)
        return sandbox
    }

    open override func tearDown() {
        for helper in helpers { helper.stop() }
        helpers.removeAll()
        for sandbox in sandboxes { sandbox.stop() }
        sandboxes.removeAll()
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
        for extra in extraBuses { extra.stop() }
        extraBuses.removeAll()
        for directory in scratchDirectories { try? FileManager.default.removeItem(at: directory) }
        scratchDirectories.removeAll()
    }

    // MARK: Calls

    @discardableResult
    public func manager(
        _ method: String, _ arguments: [BusValue] = [], on connection: BusConnection? = nil
    ) throws -> [BusValue] {
        try (connection ?? client).call(
            BusNames.busName, BusNames.managerPath, BusNames.managerInterface, method, arguments)
    }

    @discardableResult
    public func start(
        _ name: String, _ options: [(String, BusValue)] = [], on connection: BusConnection? = nil
    ) throws -> String {
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
        XCTAssertTrue(
            reached, "\(name).\(property) is \(String(describing: last)), not \(expected)", file: file, line: line)
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

    /// Proves that something did not happen by the arrival of something that must come after
    /// it: `send` makes the daemon (or a peer it talks to) produce a marker after everything it
    /// had handled before, and this pumps until `arrived` says the marker is there. Whatever
    /// the daemon was going to send for what came before has arrived by then, so the test
    /// asserts its absence next, with no sleep that a loaded machine could outlast.
    public func waitForMarker(
        _ what: String, seconds: Double = 20, file: StaticString = #filePath, line: UInt = #line,
        send: () throws -> Void, arrived: () -> Bool
    ) throws {
        try send()
        XCTAssertTrue(
            BusConnection.pump(seconds: seconds, until: arrived), "the marker (\(what)) arrived",
            file: file, line: line)
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
        (try? client.call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner", [.string(name)]))?
            .first?.string
    }

    /// Asserts that `body` fails with the progressd error `name` and a message containing `fragment`.
    public func assertBusError(
        _ name: String, _ fragment: String, file: StaticString = #filePath, line: UInt = #line,
        _ body: () throws -> Void
    ) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            guard let error = error as? BusCallError else { return XCTFail("\(error)", file: file, line: line) }
            XCTAssertEqual(error.name, BusNames.errorPrefix + name, error.message, file: file, line: line)
            XCTAssertTrue(
                error.message.contains(fragment), "'\(error.message)' lacks '\(fragment)'", file: file, line: line)
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
