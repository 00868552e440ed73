import Foundation
import ProgressBus
import ProgressClient
import ProgressModel
import ProgressPolicies
import ProgressTestSupport
import XCTest

/// The daemon fixture with a private accessibility bus (launcher and registry) beside its
/// session bus; pyatspi looks at them as an assistive tool would.
class AccessibilityTestCase: DaemonTestCase {
    var a11y: AccessibilityBus!
    var tool: AtspiTool { AtspiTool(environment: a11y.environment) }
    /// Whether accessibility is switched on before the daemon starts.
    var enabledAtStart: Bool { true }
    override var daemonEnvironment: [String: String] { a11y.environment }

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/libexec/at-spi-bus-launcher") else {
            throw XCTSkip("at-spi2-core is not installed (make deps installs it)")
        }
        try super.setUpWithError()
    }

    /// Match rules for a `monitor` of the session bus, started before the daemon (none: no monitor).
    var monitorRules: [String] { [] }
    var monitor: BusMonitor!

    override func prepareBus() throws {
        a11y = try AccessibilityBus(session: bus)
        if enabledAtStart { try a11y.setEnabled(true) }
        if !monitorRules.isEmpty {
            monitor = try BusMonitor(address: bus.address, rules: monitorRules + [
                "type='method_call',interface='org.freedesktop.DBus.Peer',member='Ping'",
            ])
        }
    }

    override func tearDownPeers() {
        monitor?.stop()
        monitor = nil
        a11y?.stop()
        a11y = nil
    }

    /// What the monitor saw the daemon send (header and arguments of each message) up to a
    /// reply of the daemon to a call made now: the daemon has sent all it was going to send
    /// for what it had handled by then. A Ping sent after that reply marks how far the
    /// monitor must read.
    func messagesFromTheDaemon() throws -> [String] {
        let daemonName = try XCTUnwrap(nameOwner(BusNames.busName))
        try settle()
        try client.call(BusNames.busName, "/", "org.freedesktop.DBus.Peer", "Ping")
        XCTAssertTrue(monitor.waitFor { $0.contains("member=Ping") }, "the monitor saw the Ping")
        return monitor.messages.filter { $0.contains("sender=\(daemonName) ") }
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
            BusNames.busName, path, BusNames.propertiesInterface, "Get",
            [.string(BusNames.taskInterface), .string("AccessibleText")]
        ).first?.string ?? ""
    }
}
