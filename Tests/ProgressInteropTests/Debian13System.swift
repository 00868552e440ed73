import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// A throwaway Debian 13 for one test: a writable overlay of the root `make interop` made
/// (PROGRESSD_DEBIAN13_ROOT, scripts/debian13-root.sh) in a mount namespace of its own
/// (scripts/in-root.sh), with the Debian 13 package (PROGRESSD_DEB13) installed by
/// `apt install ./…`. A holder process keeps the namespace: every command of the test enters
/// it (`nsenter` into the holder's mounts and root), so that all of them see one system, and
/// it ends when the test process does (the holder reads its lifeline). The machine's /tmp and
/// /dev/shm are seen inside, so the tests' scratch folders and private buses keep their paths,
/// and so are the tests' helpers and the repository's scripts (read-only).
final class Debian13System {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let helpers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("helpers")

    let holder: HelperProcess
    /// The holder's process id: the namespace's and the root's to enter.
    let pid: Int32

    /// What `make interop` names, or a skip without PROGRESSD_INTEROP=1 and a failure when it
    /// is missing (CI=true fails rather than skips: its roots and package are made by make interop).
    static func required(_ variable: String) throws -> String {
        let environment = ProcessInfo.processInfo.environment
        guard environment["PROGRESSD_INTEROP"] == "1" else {
            throw XCTSkip("the Debian 13 tests run with `make interop` (PROGRESSD_INTEROP=1)")
        }
        guard let value = environment[variable], FileManager.default.fileExists(atPath: value) else {
            if environment["CI"] == "true" {
                throw TestSupportError("\(variable) names nothing: `make interop` makes it")
            }
            throw XCTSkip("\(variable) is not set or names nothing: `make interop` sets it")
        }
        return value
    }

    /// `root` defaults to make interop's Debian 13 root; `install` (the package by default)
    /// is installed by apt, after `apt-get update` with `update`; `errors` receives the
    /// holder's stderr (apt's log when it fails).
    init(root: String? = nil, install: String?? = .none, update: Bool = false, errors: URL) throws {
        let root = try root ?? Self.required("PROGRESSD_DEBIAN13_ROOT")
        let deb = try install ?? Self.required("PROGRESSD_DEB13")
        var arguments = [
            Self.repository.appendingPathComponent("scripts/in-root.sh").path, root,
            "--bind-ro", Self.helpers.path, "--bind-ro", Self.repository.appendingPathComponent("scripts").path,
        ]
        if update { arguments.append("--update") }
        if let deb { arguments += ["--install", deb] }
        arguments += ["--", "/bin/sh", "-c", "echo \"root-ready $$\"; read -r _"]
        let holder = try HelperProcess(
            "/bin/sh", arguments, environment: ProcessInfo.processInfo.environment,
            readsCommands: true, errorFile: errors)
        var line: String?
        _ = BusConnection.pump(seconds: 600) {
            line = holder.lines.first { $0.hasPrefix("root-ready ") }
            return line != nil || !holder.isRunning
        }
        guard let pid = line.flatMap({ Int32($0.dropFirst("root-ready ".count)) }) else {
            throw TestSupportError(
                "the Debian 13 root did not start: \((try? String(contentsOf: errors, encoding: .utf8)) ?? "")")
        }
        self.holder = holder
        self.pid = pid
    }

    /// EXECUTABLE (a path inside the root) with ARGUMENTS, as a command line that runs it there.
    func command(_ executable: String, _ arguments: [String] = []) -> [String] {
        ["/usr/bin/nsenter", "-t", String(pid), "-m", "-r", "-w", "--", executable] + arguments
    }

    /// `environment` as programs inside the root get it: their PATH, and nothing of the
    /// machine's toolchain.
    static func inside(_ environment: [String: String]) -> [String: String] {
        var environment = environment
        environment["PATH"] = "/usr/sbin:/usr/bin:/sbin:/bin"
        environment["LD_LIBRARY_PATH"] = nil
        return environment
    }

    func run(_ executable: String, _ arguments: [String] = [], environment: [String: String]) throws -> CommandResult {
        let line = command(executable, arguments)
        return try CommandResult.run(line[0], Array(line.dropFirst()), environment: Self.inside(environment))
    }

    /// A helper program inside the root, tied to the test process as HelperProcess's are.
    func helper(
        _ executable: String, _ arguments: [String], environment: [String: String], readsCommands: Bool = false,
        errorFile: URL? = nil
    ) throws -> HelperProcess {
        let line = command(executable, arguments)
        return try HelperProcess(
            line[0], Array(line.dropFirst()), environment: Self.inside(environment),
            readsCommands: readsCommands, errorFile: errorFile)
    }

    /// D-Bus activation files for `services` from the root, written into `directory` with
    /// each Exec= run inside the root, so that a bus on this machine starts Debian 13's programs.
    func installActivationFiles(_ services: [String], in directory: URL) throws {
        for service in services {
            let result = try run("/bin/cat", ["/usr/share/dbus-1/services/\(service).service"], environment: [:])
            guard result.status == 0 else { throw TestSupportError("no \(service) in the root: \(result.errors)") }
            let lines = result.output.split(separator: "\n").map { line -> String in
                guard line.hasPrefix("Exec=") else { return String(line) }
                return "Exec=" + command("/usr/bin/env", []).joined(separator: " ") + " "
                    + line.dropFirst("Exec=".count)
            }
            try (lines.joined(separator: "\n") + "\n")
                .write(to: directory.appendingPathComponent("\(service).service"), atomically: true, encoding: .utf8)
        }
    }
}
