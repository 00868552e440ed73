import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// AT_SPI_BUS_ADDRESS names a bus whose registry takes the daemon's Embed and holds it
/// unanswered: the daemon connects to it (the variable overrides org.a11y.Status) and its
/// session-bus service stays as quick as ever, since nothing waits on the accessibility bus.
final class AccessibilityBadPeerTests: DaemonTestCase {
    override var startsDaemonAtSetUp: Bool { false }

    /// A registry that prints each call it gets, holds every Embed, and answers them when
    /// told `answer` on its standard input.
    static let registry = """
        import sys
        from gi.repository import Gio, GLib
        bus = Gio.DBusConnection.new_for_address_sync(sys.argv[1],
            Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
        node = Gio.DBusNodeInfo.new_for_xml('''<node>
          <interface name="org.a11y.atspi.Socket"><method name="Embed">
            <arg direction="in" type="(so)"/><arg direction="out" type="(so)"/></method></interface>
          <interface name="org.a11y.atspi.Registry"><method name="GetRegisteredEvents">
            <arg direction="out" type="a(ss)"/></method></interface></node>''')
        held = []
        def called(connection, sender, path, interface, method, parameters, invocation):
            print(method, flush=True)
            if method == "Embed":
                held.append(invocation)
            else:
                invocation.return_value(GLib.Variant("(a(ss))", ([],)))
        bus.register_object("/org/a11y/atspi/accessible/root", node.interfaces[0], called, None, None)
        bus.register_object("/org/a11y/atspi/registry", node.interfaces[1], called, None, None)
        bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "RequestName",
                      GLib.Variant("(su)", ("org.a11y.atspi.Registry", 4)), None, 0, -1, None)
        print("OWNED", flush=True)
        loop = GLib.MainLoop()
        def command(channel, condition):
            line = sys.stdin.readline()
            if not line:
                loop.quit()
                return False
            for invocation in held:
                invocation.return_value(GLib.Variant("((so))", \
        ((bus.get_unique_name(), "/org/a11y/atspi/accessible/root"),)))
            held.clear()
            print("answered", flush=True)
            return True
        GLib.io_add_watch(GLib.IOChannel.unix_new(0), GLib.PRIORITY_DEFAULT, \
        GLib.IOCondition.IN | GLib.IOCondition.HUP, command)
        loop.run()
        """

    func testARegistryThatDoesNotAnswerSlowsNothing() throws {
        let accessibilityBus = try extraBus()
        let registry = try HelperProcess(
            "/usr/bin/python3", ["-c", Self.registry, accessibilityBus.address],
            environment: accessibilityBus.environment, readsCommands: true)
        helpers.append(registry)
        XCTAssertNotNil(registry.waitForLine { $0 == "OWNED" }, "the registry owns its name: \(registry.lines)")

        try startDaemon(environment: ["AT_SPI_BUS_ADDRESS": accessibilityBus.address])
        XCTAssertNotNil(registry.waitForLine(seconds: 20) { $0 == "Embed" },
                        "the daemon connected to the bus AT_SPI_BUS_ADDRESS names and called Embed")
        // Embed waits for its reply; the session bus is served meanwhile.
        for index in 0..<20 {
            try start("job\(index)")
            try manager("List")
        }
        // Only now is Embed answered, and the daemon takes the reply: it asks for the
        // listeners next. A daemon that had waited for Embed before serving the calls above
        // would have given up on it (its timeout) before this answer came.
        registry.send("answer")
        XCTAssertNotNil(registry.waitForLine(seconds: 20) { $0 == "GetRegisteredEvents" },
                        "the daemon was still waiting for Embed's reply: \(registry.lines); \(daemon.errors)")
        XCTAssertFalse(daemon.errors.contains("Embed"), daemon.errors)
        XCTAssertTrue(daemon.process.isRunning)
    }
}
