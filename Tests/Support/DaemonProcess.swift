import Foundation
#if canImport(Glibc)
import Glibc
#endif
import ProgressBus
import ProgressClient

/// The built progressd, running on a private bus.
public final class DaemonProcess {
    public let process: Process
    /// Where the daemon's stderr goes: a file in its bus's scratch directory, which no
    /// chatty daemon can fill the way it fills a pipe nobody reads.
    public let errorFile: URL
    /// Open from the start, so that stderr can be read after the bus's directory is gone.
    private let errorReader: FileHandle
    private let exit: ProcessExit
    /// progressd's own arguments, and what runs it (nil: the build's progressd).
    public let arguments: [String]
    public let command: [String]?

    /// Starts the daemon and waits until it owns its bus name.
    /// Without `--state-directory` in `arguments`, state goes to a directory of the bus's,
    /// never the user's. `command` runs another progressd (an installed one, with the program
    /// that takes it there first), which finds its catalogs where it was installed.
    public init(
        bus: PrivateBus, arguments: [String] = [], environment: [String: String] = [:], command: [String]? = nil
    ) throws {
        process = Process()
        process.executableURL = command.map { URL(fileURLWithPath: $0[0]) } ?? BuildProducts.url(of: "progressd")
        var arguments = arguments
        if !arguments.contains("--state-directory") { arguments += ["--state-directory", bus.stateDirectory.path] }
        if command == nil, !arguments.contains("--locale-directory") {
            arguments += ["--locale-directory", BuildProducts.localeDirectory.path]
        }
        process.arguments = (command.map { Array($0.dropFirst()) } ?? []) + arguments
        self.arguments = arguments
        self.command = command
        // English unless a test asks otherwise, so labels are predictable.
        // The bus's runtime directory, as an activated daemon has: its lock goes there.
        let fixture = ["LC_ALL": "C.UTF-8", "XDG_RUNTIME_DIR": bus.runtimeDirectory.path]
        process.environment = bus.environment.merging(fixture.merging(environment) { $1 }) { $1 }
        errorFile = bus.scratchFile("progressd-stderr")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: errorFile)
        errorReader = try FileHandle(forReadingFrom: errorFile)
        exit = ProcessExit(process)
        try process.run()
        let connection = try bus.connect()
        let owned = BusConnection.pump(seconds: 20) {
            let reply = try? connection.call(
                "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
                [.string(BusNames.busName)])
            return reply?.first?.bool == true || !process.isRunning
        }
        guard owned, process.isRunning else {
            process.terminate()
            throw TestSupportError("progressd did not own \(BusNames.busName): \(stopAndReadErrors())")
        }
    }

    /// Stops with SIGTERM; returns the exit status.
    @discardableResult
    public func stop() -> Int32 {
        if process.isRunning { process.terminate() }
        exit.wait()
        return process.terminationStatus
    }

    /// Waits for the daemon to exit on its own (a lost bus: a SIGTERM first would be an exit
    /// of its own, 15); returns the exit status, or nil if it is still running after `seconds`.
    public func waitForExit(seconds: Double = 20) -> Int32? {
        exit.wait(seconds: seconds) ? process.terminationStatus : nil
    }

    /// The daemon's resident memory, from /proc.
    public func residentBytes() throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }

    /// SIGKILL: no chance to save anything.
    public func kill() {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        exit.wait()
    }

    /// What the daemon wrote to stderr, once it has exited.
    public func stopAndReadErrors() -> String {
        stop()
        return errors
    }

    /// What the daemon has written to stderr so far.
    public var errors: String {
        try? errorReader.seek(toOffset: 0)
        return String(decoding: (try? errorReader.readToEnd()) ?? Data(), as: UTF8.self)
    }

    /// The last `count` lines of stderr, for a failing test's log.
    public func errorTail(_ count: Int = 20) -> String {
        errors.split(separator: "\n", omittingEmptySubsequences: false).suffix(count).joined(separator: "\n")
    }

    deinit { if process.isRunning { process.terminate(); exit.wait() } }
}

/// Where `swift build` put the executables: beside the test bundle.
public enum BuildProducts {
    /// The compiled message catalogs (`make catalogs`), for daemons and describers under test.
    public static var localeDirectory: URL {
        if let directory = ProcessInfo.processInfo.environment["PROGRESSD_LOCALE_DIR"] {
            return URL(fileURLWithPath: directory)
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/share/locale")
    }

    public static func url(of executable: String) -> URL {
        if let directory = ProcessInfo.processInfo.environment["PROGRESSD_BUILD_DIR"] {
            return URL(fileURLWithPath: directory).appendingPathComponent(executable)
        }
        let testBinary = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        return testBinary.deletingLastPathComponent().appendingPathComponent(executable)
    }
}

/// Runs a command to completion and captures what it printed.
public struct CommandResult {
    public let status: Int32
    public let output: String
    public let errors: String

    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]
    ) throws -> CommandResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : "/usr/bin/env")
        process.arguments = executable.hasPrefix("/") ? arguments : [executable] + arguments
        process.environment = environment
        // stderr goes to a file, so that neither pipe can fill and stall the child.
        let errorFile = FileManager.default.temporaryDirectory
            .appendingPathComponent("progressd-stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errorFile) }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errorFile)
        let exit = ProcessExit(process)
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        exit.wait()
        let errorData = (try? Data(contentsOf: errorFile)) ?? Data()
        return CommandResult(
            status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
            errors: String(decoding: errorData, as: UTF8.self))
    }
}
