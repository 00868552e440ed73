import Foundation
import ProgressBus
import ProgressClient

/// A private dbus-daemon for one test class. It runs under a shell that waits on a pipe
/// from this process: when the test process exits or crashes, the pipe closes and the
/// shell kills the bus, so no bus is ever orphaned. The daemon under test then loses its
/// connection and exits too.
public final class PrivateBus {
    public let address: String
    private let shell: Process
    private let lifeline: Pipe
    private let exit: ProcessExit
    private let directory: URL
    /// A system bus (`<type>system</type>`, for the system-job tests) rather than a session bus.
    public let isSystemBus: Bool
    /// A state directory for daemons on this bus, removed with it.
    public var stateDirectory: URL { directory.appendingPathComponent("state") }
    /// The runtime directory (XDG_RUNTIME_DIR) of what runs on this bus: the services it
    /// activates and the fixture's daemon (where its state directory's lock goes).
    public var runtimeDirectory: URL { directory.appendingPathComponent("runtime") }
    private var scratchFiles = 0

    /// A new file name in the bus's scratch directory (removed with it): `prefix-N`.
    public func scratchFile(_ prefix: String) -> URL {
        scratchFiles += 1
        return directory.appendingPathComponent("\(prefix)-\(scratchFiles)")
    }

    /// `serviceDirectory` holds D-Bus activation files the bus may start services from;
    /// `socket` is a fixed path to listen on (a bus that comes where a daemon already looks).
    /// `everyUser` lets processes of any user connect (a compositor that refuses to run as root).
    public init(
        serviceDirectory: URL? = nil, system: Bool = false, socket: URL? = nil, everyUser: Bool = false
    ) throws {
        isSystemBus = system
        directory = Scratch.directory("progressd-test")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // Our own configuration: no service directories (nothing installed can be
        // activated behind the tests' backs), and a policy that lets tests monitor.
        let config = directory.appendingPathComponent("bus.conf")
        try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>\(system ? "system" : "session")</type>
              <listen>\(socket.map { "unix:path=\($0.path)" } ?? "unix:dir=\(directory.path)")</listen>
              <auth>EXTERNAL</auth>
              \(serviceDirectory.map { "<servicedir>\($0.path)</servicedir>" } ?? "")
              <policy context="default">
                \(everyUser ? "<allow user=\"*\"/>" : "")
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
                \(system ? "<allow user=\"*\"/>" : "")
              </policy>
            </busconfig>
            """.write(to: config, atomically: true, encoding: .utf8)
        shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = [
            "-c",
            "dbus-daemon --config-file=\"$0\" --nofork --nopidfile --print-address=1 & bus=$!; read -r _; "
                + "kill $bus; wait $bus",
            config.path,
        ]
        lifeline = Pipe()
        let output = Pipe()
        // Services the bus activates get a scratch home of their own: an activated progressd
        // must not find (or leave) state in the real user's ~/.local/state.
        let home = directory.appendingPathComponent("home")
        let runtime = directory.appendingPathComponent("runtime")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: runtime.path)
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home.path
        environment["XDG_RUNTIME_DIR"] = runtime.path
        for (variable, folder) in [("XDG_STATE_HOME", ".local/state"), ("XDG_DATA_HOME", ".local/share"),
                                   ("XDG_CONFIG_HOME", ".config"), ("XDG_CACHE_HOME", ".cache")] {
            environment[variable] = home.appendingPathComponent(folder).path
        }
        shell.environment = environment
        shell.standardInput = lifeline
        shell.standardOutput = output
        exit = ProcessExit(shell)
        try shell.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { throw TestSupportError("dbus-daemon exited before printing its address") }
            line.append(chunk)
        }
        address = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A new client connection to this bus.
    public func connect() throws -> BusConnection { try BusConnection(address: address) }

    /// The environment for a child process that should use this bus as its session bus (or,
    /// for a system bus, as its system bus). Beside a session bus the system bus is a socket
    /// that is never there, so that no test reaches the machine's own system bus.
    public var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        if isSystemBus {
            environment["DBUS_SYSTEM_BUS_ADDRESS"] = address
        } else {
            environment["DBUS_SESSION_BUS_ADDRESS"] = address
            environment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=\(directory.path)/no-system-bus"
        }
        return environment
    }

    public func stop() {
        guard shell.isRunning else { return }
        try? lifeline.fileHandleForWriting.close()
        exit.wait()
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }
}

/// Where the tests' scratch directories go: PROGRESSD_TEST_SCRATCH if set, else /dev/shm
/// when it is a writable directory, else the temporary directory. On a tmpfs a daemon's
/// fsync costs microseconds rather than a disk's milliseconds (every transition is synced
/// before its reply); what the tests check is the order of writes and replies, which is the
/// same there, and a SIGKILL loses no more on either. `make bench` measures the disk.
public enum Scratch {
    public static let root: URL = {
        if let directory = ProcessInfo.processInfo.environment["PROGRESSD_TEST_SCRATCH"] {
            return URL(fileURLWithPath: directory)
        }
        if FileManager.default.isWritableFile(atPath: "/dev/shm") { return URL(fileURLWithPath: "/dev/shm") }
        return FileManager.default.temporaryDirectory
    }()

    /// A new directory name under the root: `prefix-UUID` (not yet created).
    public static func directory(_ prefix: String) -> URL {
        root.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    }
}

public struct TestSupportError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
