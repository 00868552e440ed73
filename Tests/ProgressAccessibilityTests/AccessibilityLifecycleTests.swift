import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// The accessibility bus comes and goes; the session-bus service never notices.
final class AccessibilityLifecycleTests: AccessibilityTestCase {
    func testKillingTheAccessibilityBusLeavesTheDaemonServingAndANewOneGetsTheTree() throws {
        try start("job", [("title", .string("Job"))])
        _ = try treeWith("job")
        a11y.kill()
        // The session bus is served all along: calls before and after the bus is back.
        try start("later", [("title", .string("Later"))])
        XCTAssertEqual(Set(try manager("List").first?.strings ?? []), ["job", "later"])
        try manager("SetFraction", [.string("job"), .double(0.3)])
        try a11y.launch()
        try a11y.setEnabled(true)
        let tree = try tool.tree(within: 20) { $0.bar("job") != nil && $0.bar("later") != nil }
        XCTAssertEqual(tree.bar("job")?.value["current"] as? Double, 30, "the new bus gets the tree as it is now")
        XCTAssertNotNil(tree.bar("later"))
    }

    func testSwitchingAccessibilityOffDropsTheConnection() throws {
        try start("job")
        _ = try treeWith("job")
        XCTAssertTrue(try daemonIsOnAccessibilityBus())
        try a11y.setEnabled(false)
        XCTAssertTrue(poll(seconds: 20) { (try? self.daemonIsOnAccessibilityBus()) == false }, "the connection is dropped")
        XCTAssertNotNil(try manager("List").first?.strings)
    }
}

/// With accessibility off, progressd makes no connection to the accessibility bus; it
/// makes one as soon as the switch (IsEnabled, or ScreenReaderEnabled) turns on.
final class AccessibilityOffTests: AccessibilityTestCase {
    override var enabledAtStart: Bool { false }
    private var monitor: BusMonitor?

    override func prepareBus() throws {
        try super.prepareBus()
        // In place before the daemon starts, so that its questions to the launcher are seen.
        monitor = try BusMonitor(address: bus.address, rules: [
            "type='method_call',interface='org.a11y.Bus'", "type='method_return'",
            "type='method_call',interface='org.freedesktop.DBus.Peer',member='Ping'",
        ])
    }

    override func tearDownPeers() {
        monitor?.stop()
        monitor = nil
        super.tearDownPeers()
    }

    func testNoConnectionWhileOffThenOneWhenSwitchedOn() throws {
        let monitor = try XCTUnwrap(monitor)
        try start("job", [("fraction", .double(0.5))])
        try manager("SetFraction", [.string("job"), .double(0.6)])
        // The launcher has answered the daemon's one question (org.a11y.Status), and the
        // daemon has answered a call sent after that answer reached it: had it taken
        // accessibility for on, it would have asked for the bus's address (GetAddress, the
        // only way to it here: AT_SPI_BUS_ADDRESS is empty) before that. The Ping, sent
        // after, marks how far the monitor must have read.
        let daemonName = try XCTUnwrap(nameOwner(BusNames.busName))
        let launcher = try XCTUnwrap(nameOwner("org.a11y.Bus"))
        XCTAssertTrue(monitor.waitFor { $0.hasPrefix("method return") && $0.contains("sender=\(launcher) -> destination=\(daemonName) ") },
                      "the daemon asked the launcher whether accessibility is on")
        try settle()
        try client.call(BusNames.busName, "/", "org.freedesktop.DBus.Peer", "Ping")
        XCTAssertTrue(monitor.waitFor { $0.contains("member=Ping") })
        let asked = monitor.headers.filter { $0.contains("sender=\(daemonName) ") && $0.contains("member=GetAddress") }
        XCTAssertEqual(asked, [], "the daemon does not ask for the accessibility bus while it is off")
        XCTAssertFalse(try daemonIsOnAccessibilityBus(), "no connection to the accessibility bus while it is off")
        try a11y.setEnabled(true, property: "ScreenReaderEnabled")
        let tree = try treeWith("job")
        XCTAssertEqual(tree.bar("job")?.value["current"] as? Double, 60)
        XCTAssertTrue(try daemonIsOnAccessibilityBus())
    }
}

/// `--no-accessibility` turns the export off entirely.
final class NoAccessibilityFlagTests: AccessibilityTestCase {
    override var daemonArguments: [String] { ["--no-accessibility"] }

    func testTheFlagKeepsTheDaemonOffTheAccessibilityBus() throws {
        try start("job")
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertFalse(try daemonIsOnAccessibilityBus())
        XCTAssertEqual(try tool.tree()["found"] as? Bool, false, "pyatspi lists no progressd")
    }
}

func poll(seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.1)
    }
    return condition()
}
