import Foundation
import ProgressBus
import ProgressClient
import ProgressCore
import ProgressTestSupport
import XCTest

/// A private session bus, a private accessibility bus (launcher and registry) and a
/// daemon for each test; pyatspi looks at them as an assistive tool would.
class AccessibilityTestCase: XCTestCase {
    var bus: PrivateBus!
    var a11y: AccessibilityBus!
    var daemon: DaemonProcess!
    var client: BusConnection!
    var tool: AtspiTool { AtspiTool(environment: a11y.environment) }
    /// Whether accessibility is switched on before the daemon starts.
    var enabledAtStart: Bool { true }
    var daemonArguments: [String] { [] }

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/libexec/at-spi-bus-launcher") else {
            throw XCTSkip("at-spi2-core is not installed (make deps installs it)")
        }
        bus = try PrivateBus()
        a11y = try AccessibilityBus(session: bus)
        if enabledAtStart { try a11y.setEnabled(true) }
        daemon = try DaemonProcess(bus: bus, arguments: daemonArguments, environment: a11y.environment)
        client = try bus.connect()
    }

    override func tearDown() {
        client = nil
        if let daemon {
            XCTAssertEqual(daemon.stop(), 0, "progressd exits 0 on SIGTERM")
        }
        daemon = nil
        a11y?.stop()
        a11y = nil
        bus?.stop()
        bus = nil
    }

    @discardableResult
    func manager(_ method: String, _ arguments: [BusValue] = []) throws -> [BusValue] {
        try client.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, method, arguments)
    }

    func start(_ name: String, _ options: [(String, BusValue)] = []) throws {
        try manager("Start", [.string(name), .vardict(options)])
    }

    /// The tree once the daemon's application is listed with `task` in it.
    func treeWith(_ task: String, seconds: Double = 20) throws -> [String: Any] {
        let tree = try tool.tree(within: seconds) { $0.bar(task) != nil }
        XCTAssertEqual(tree["found"] as? Bool, true, "progressd's application is listed on the accessibility bus")
        return tree
    }

    /// Whether the daemon has a connection on the accessibility bus.
    func daemonIsOnAccessibilityBus() throws -> Bool {
        try a11y.connectionPIDs().contains(UInt32(daemon.process.processIdentifier))
    }

    /// The task's AccessibleText as the daemon serves it on the session bus.
    func accessibleText(_ name: String) throws -> String {
        let path = BusNames.taskPath(try TaskName(name))
        return try client.call(
            BusNames.busName, path, BusNames.propertiesInterface, "Get", [.string(BusNames.taskInterface), .string("AccessibleText")]
        ).first?.string ?? ""
    }
}
