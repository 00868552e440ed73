import Foundation
import ProgressBus
import ProgressClient

/// A private accessibility bus: at-spi-bus-launcher on a private session bus, in a
/// scratch HOME and XDG_RUNTIME_DIR of its own (the launcher puts its bus socket at
/// $XDG_RUNTIME_DIR/at-spi/bus), with GSettings in memory so that org.a11y.Status's
/// IsEnabled can be set without a dconf service. The registry (at-spi2-registryd) is
/// started by the accessibility bus on the first call to it.
///
/// The launcher runs as its own process group under a shell that waits on a pipe from
/// this process: when the test process exits or crashes, the pipe closes and the shell
/// kills the group (launcher, its dbus-daemon and the registry, which would otherwise
/// outlive the launcher), so nothing is orphaned.
public final class AccessibilityBus {
    public let session: PrivateBus
    public let directory: URL
    private var shell: Process?
    private var shellExit: ProcessExit?
    private var lifeline: Pipe?

    public init(session: PrivateBus) throws {
        self.session = session
        directory = Scratch.directory("progressd-a11y")
        for sub in ["home", "runtime"] {
            try FileManager.default.createDirectory(
                at: directory.appendingPathComponent(sub), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        }
        try launch()
    }

    /// What every process of the test uses: the private session bus, the scratch home and
    /// runtime directory, and no accessibility address or display from the real session.
    public var environment: [String: String] {
        var environment = session.environment
        environment["HOME"] = directory.appendingPathComponent("home").path
        environment["XDG_RUNTIME_DIR"] = directory.appendingPathComponent("runtime").path
        environment["GSETTINGS_BACKEND"] = "memory"
        // Empty: GTK, Qt, libatspi and progressd take an empty address as none.
        environment["AT_SPI_BUS_ADDRESS"] = ""
        // Unset, not empty: the registry opens the display DISPLAY names, and exits when
        // an empty name opens none ("AT-SPI: Cannot open default display").
        for name in ["DISPLAY", "WAYLAND_DISPLAY"] { environment[name] = nil }
        return environment
    }

    /// Starts the launcher and waits until it owns org.a11y.Bus.
    public func launch() throws {
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        // Process starts the shell as the leader of a process group of its own, which the
        // launcher, its dbus-daemon and the registry (double-forked by that dbus-daemon)
        // inherit: `kill 0` ends exactly them; the shell ignores the TERM itself and waits.
        shell.arguments = [
            "-c", "/usr/libexec/at-spi-bus-launcher & l=$!; read -r _; trap '' TERM; kill -TERM 0; wait $l",
        ]
        shell.environment = environment
        let lifeline = Pipe()
        shell.standardInput = lifeline
        shell.standardOutput = FileHandle.nullDevice
        shell.standardError = FileHandle.nullDevice
        shellExit = ProcessExit(shell)
        try shell.run()
        self.shell = shell
        self.lifeline = lifeline
        let connection = try session.connect()
        let owned = BusConnection.pump(seconds: 20) {
            let reply = try? connection.call(
                "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
                [.string("org.a11y.Bus")])
            return reply?.first?.bool == true
        }
        guard owned else { throw TestSupportError("at-spi-bus-launcher did not own org.a11y.Bus") }
    }

    /// Kills the launcher, its bus and the registry; `launch` starts new ones.
    public func kill() {
        guard let shell, shell.isRunning else { return }
        try? lifeline?.fileHandleForWriting.close()
        shellExit?.wait()
        self.shell = nil
        // The old bus's socket stays behind; a new launcher binds a fresh one.
        try? FileManager.default.removeItem(at: directory.appendingPathComponent("runtime/at-spi"))
    }

    /// Sets org.a11y.Status.IsEnabled, as the desktop's accessibility switch does.
    public func setEnabled(_ enabled: Bool, property: String = "IsEnabled") throws {
        try session.connect().call(
            "org.a11y.Bus", "/org/a11y/bus", "org.freedesktop.DBus.Properties", "Set",
            [.string("org.a11y.Status"), .string(property), .variant(.bool(enabled))])
    }

    /// The accessibility bus's address (asking starts the bus, as it does for any client).
    public func address() throws -> String {
        try session.connect().call("org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus", "GetAddress").first?.string ?? ""
    }

    /// The process ids of every connection on the accessibility bus.
    public func connectionPIDs() throws -> [UInt32] {
        let bus = try BusConnection(address: try address())
        let names = try bus.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "ListNames")
            .first?.strings ?? []
        return names.filter { $0.hasPrefix(":") }.compactMap { name in
            try? bus.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                          "GetConnectionUnixProcessID", [.string(name)]).first.flatMap { value -> UInt32? in
                if case .uint32(let pid) = value.unboxed { pid } else { nil }
            }
        }
    }

    public func stop() {
        kill()
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }
}
