import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif
import ProgressClient

/// A sandbox built from Debian's parts the way Flatpak builds one: `bwrap` with the app's
/// `.flatpak-info` at the sandbox's root, and `xdg-dbus-proxy` running inside it in filter
/// mode, allowed to talk to `talk` only. Clients connect to the proxy's socket; the bus (and
/// so progressd) sees the proxy's process, whose root holds the `.flatpak-info`, exactly as
/// with a Flatpak app.
public final class FlatpakSandbox {
    public let appId: String
    /// The proxy's socket, as a D-Bus address, for the sandboxed app's connections.
    public let address: String
    private let process = Process()
    private let directory: URL
    private let errors: URL
    private let exit: ProcessExit

    /// Why bwrap could not start a sandbox here, if it can not (no namespaces in this
    /// container, no bwrap): tests skip with this message, and only then.
    public static var unavailableReason: String? {
        let probe = try? CommandResult.run(
            "bwrap", ["--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
                      "--symlink", "usr/bin", "/bin", "--proc", "/proc", "--dev", "/dev", "--unshare-pid", "--",
                      "/bin/true"],
            environment: ProcessInfo.processInfo.environment)
        // env exits 127 when it finds no bwrap on PATH.
        guard let probe, probe.status != 127 else {
            return "bwrap is not installed (scripts/install-deps.sh installs bubblewrap)"
        }
        return probe.status == 0 ? nil : "bwrap can not create a sandbox here: \(probe.errors)"
    }

    /// Skips a sandbox test where no sandbox can be made, but fails it under CI (`CI` set),
    /// whose machine must have bwrap: a skip there would take the coverage away unseen.
    public static func requireSandbox() throws {
        guard let reason = unavailableReason else { return }
        if let ci = ProcessInfo.processInfo.environment["CI"], !ci.isEmpty {
            throw TestSupportError("no sandbox under CI: \(reason)")
        }
        throw XCTSkip(reason)
    }

    /// Starts the proxy in a new sandbox for `appId`, on the bus at `busAddress` (a
    /// `unix:path=` address), and waits until it listens.
    public init(appId: String, busAddress: String, talk: String) throws {
        self.appId = appId
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("progressd-sandbox-\(UUID().uuidString)")
        let proxyDirectory = directory.appendingPathComponent("proxy")
        try FileManager.default.createDirectory(at: proxyDirectory, withIntermediateDirectories: true)
        let info = directory.appendingPathComponent("flatpak-info")
        // What Flatpak writes at /.flatpak-info (its [Application] name is what counts).
        try """
            [Application]
            name=\(appId)
            runtime=runtime/org.freedesktop.Platform/x86_64/23.08

            [Instance]
            instance-id=1

            """.write(to: info, atomically: true, encoding: .utf8)
        guard let socket = busAddress.split(separator: ",").first
            .flatMap({ $0.hasPrefix("unix:path=") ? $0.dropFirst(10) : nil })
        else { throw TestSupportError("the bus address \(busAddress) is not unix:path=") }
        let socketURL = URL(fileURLWithPath: String(socket))
        errors = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/bwrap")
        process.arguments = [
            "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
            "--symlink", "usr/bin", "/bin", "--proc", "/proc", "--dev", "/dev",
            "--ro-bind", info.path, "/.flatpak-info",
            "--bind", socketURL.deletingLastPathComponent().path, "/run/host-bus",
            "--bind", proxyDirectory.path, "/run/proxy",
            "--unshare-pid", "--die-with-parent", "--",
            "/usr/bin/xdg-dbus-proxy", "unix:path=/run/host-bus/\(socketURL.lastPathComponent)", "/run/proxy/bus",
            "--filter", "--talk=\(talk)",
        ]
        process.standardError = try FileHandle(forWritingTo: errors)
        process.standardOutput = FileHandle.nullDevice
        exit = ProcessExit(process)
        try process.run()
        let socketPath = proxyDirectory.appendingPathComponent("bus").path
        address = "unix:path=" + socketPath
        // The socket file appears when the proxy binds it, a moment before it listens: a
        // connection that the proxy answers is the sign.
        let listening = BusConnection.pump(seconds: 20) {
            !self.process.isRunning
                || (FileManager.default.fileExists(atPath: socketPath)
                    && (try? BusConnection(address: "unix:path=" + socketPath)) != nil)
        }
        guard listening, process.isRunning else {
            stop()
            throw TestSupportError("xdg-dbus-proxy did not start in bwrap: \(errorText)")
        }
    }

    /// A connection of the sandboxed app.
    public func connect() throws -> BusConnection { try BusConnection(address: address) }

    public var errorText: String { (try? String(contentsOf: errors, encoding: .utf8)) ?? "" }

    public func stop() {
        if process.isRunning { process.terminate() }
        exit.wait()
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }
}
