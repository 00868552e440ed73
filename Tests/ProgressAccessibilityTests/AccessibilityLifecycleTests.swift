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
        XCTAssertTrue(
            poll(seconds: 20) { (try? self.daemonIsOnAccessibilityBus()) == false }, "the connection is dropped")
        XCTAssertNotNil(try manager("List").first?.strings)
    }
}

/// With accessibility off, progressd makes no connection to the accessibility bus; it
/// makes one as soon as the switch (IsEnabled, or ScreenReaderEnabled) turns on.
final class AccessibilityOffTests: AccessibilityTestCase {
    override var enabledAtStart: Bool { false }
    override var monitorRules: [String] { ["type='method_call',interface='org.a11y.Bus'", "type='method_return'"] }

    func testNoConnectionWhileOffThenOneWhenSwitchedOn() throws {
        try start("job", [("fraction", .double(0.5))])
        try manager("SetFraction", [.string("job"), .double(0.6)])
        // Once the launcher has answered the daemon's one question (org.a11y.Status), a call
        // the daemon answers after that: had it taken accessibility for on, it would have
        // asked for the bus's address (GetAddress, the only way to it here:
        // AT_SPI_BUS_ADDRESS is empty) before that reply.
        let daemonName = try XCTUnwrap(nameOwner(BusNames.busName))
        let launcher = try XCTUnwrap(nameOwner("org.a11y.Bus"))
        XCTAssertTrue(
            monitor.waitFor {
                $0.hasPrefix("method return") && $0.contains("sender=\(launcher) -> destination=\(daemonName) ")
            },
            "the daemon asked the launcher whether accessibility is on")
        let asked = try messagesFromTheDaemon().filter { $0.contains("member=GetAddress") }
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
    override var monitorRules: [String] { ["type='method_call',interface='org.freedesktop.DBus'"] }

    func testTheFlagKeepsTheDaemonOffTheAccessibilityBus() throws {
        try start("job")
        // The export starts watching for the launcher (a match rule and GetNameOwner for
        // org.a11y.Bus) before the daemon asks the bus for its own name, so by a reply of
        // the daemon's all of that has been sent, had the flag been ignored.
        let watching = try messagesFromTheDaemon().filter { $0.contains("org.a11y.Bus") }
        XCTAssertEqual(watching, [], "the daemon does not even watch for the accessibility launcher")
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
