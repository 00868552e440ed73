import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// What the real-client tests share: a private bus, a scratch HOME, XDG_RUNTIME_DIR and
/// XDG_DATA_DIRS (with an installed-looking org.example.Backup.desktop, "Photo Backup"),
/// progressd, and helpers (PyGObject scripts, Xvfb and dunst) that all die with the test
/// process: each hangs on a pipe from us, and when it closes they stop.
class InteropTestCase: DaemonTestCase {
    var scratch: URL!
    /// The session's environment (`environment`), with the class's flags.
    override var daemonEnvironment: [String: String] { environment }

    static let helperDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("helpers")

    override func setUpWithError() throws {
        // `make test` skips these (swift test --skip ProgressInteropTests); `make interop`
        // installs what they need and sets PROGRESSD_INTEROP=1.
        guard ProcessInfo.processInfo.environment["PROGRESSD_INTEROP"] == "1" else {
            throw XCTSkip("real-client tests run with `make interop` (PROGRESSD_INTEROP=1)")
        }
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "progressd-interop-\(UUID().uuidString)")
        let applications = scratch.appendingPathComponent("share/applications")
        try FileManager.default.createDirectory(at: applications, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            at: scratch.appendingPathComponent("run"), withIntermediateDirectories: true)
        try FileManager.default.setAttributes(
            [.posixPermissions: 0o700], ofItemAtPath: scratch.appendingPathComponent("run").path)
        try "[Desktop Entry]\nType=Application\nName=Photo Backup\nExec=true\n"
            .write(
                to: applications.appendingPathComponent("org.example.Backup.desktop"), atomically: true,
                encoding: .utf8)
        // The bus (which may start the services of `busServiceDirectory`), then progressd.
        try super.setUpWithError()
    }

    override func prepareBus() throws { try setUpBeforeDaemon() }

    /// For a server (dunst) that must be on the bus before progressd.
    func setUpBeforeDaemon() throws {}

    override func tearDown() {
        super.tearDown()
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
    }

    /// The private bus as the session bus, and scratch directories for everything else.
    var environment: [String: String] {
        var environment = bus.environment
        environment["HOME"] = scratch.path
        environment["XDG_RUNTIME_DIR"] = scratch.appendingPathComponent("run").path
        // The scratch folder first, and the system's after it, as a session has them: GIO's
        // modules (dconf, GNOME's proxy resolver, which gnome-shell brings) read GSettings
        // schemas from there, and fwupdmgr aborts without them.
        environment["XDG_DATA_DIRS"] = scratch.appendingPathComponent("share").path + ":/usr/share"
        environment["XDG_CONFIG_HOME"] = scratch.appendingPathComponent("config").path
        environment["LC_ALL"] = "C.UTF-8"
        return environment
    }

    /// Starts a helper script (from helpers/) under /usr/bin/python3, Debian's, with PyGObject,
    /// tied to the test process (Tests/Support/HelperProcess). With `readsCommands` its stdin
    /// is the lifeline, and it must exit at the end of it.
    @discardableResult
    func helper(_ script: String, _ arguments: [String], readsCommands: Bool = false) throws -> HelperProcess {
        let helper = try HelperProcess(
            "/usr/bin/python3", [Self.helperDirectory.appendingPathComponent(script).path] + arguments,
            environment: environment, readsCommands: readsCommands,
            errorFile: scratch.appendingPathComponent("\(script)-\(helpers.count).stderr"))
        helpers.append(helper)
        return helper
    }

    func run(_ executable: String, _ arguments: [String]) throws -> CommandResult {
        try CommandResult.run(executable, arguments, environment: environment)
    }

    // MARK: Reads

    func snapshot() throws -> [String: [String: BusValue]] {
        var tasks: [String: [String: BusValue]] = [:]
        for (name, value) in try manager("Snapshot", [.string("")]).first?.dictionary ?? [:] {
            tasks[name] = value.dictionary ?? [:]
        }
        return tasks
    }

    /// Pumps until `condition` holds on the task list; returns the last one.
    @discardableResult
    func waitForTasks(
        _ seconds: Double = 10, _ condition: ([String: [String: BusValue]]) -> Bool
    ) -> [String: [String: BusValue]] {
        var last: [String: [String: BusValue]] = [:]
        BusConnection.pump(seconds: seconds) {
            last = (try? snapshot()) ?? [:]
            return condition(last)
        }
        return last
    }

    /// Lets the main context (and time) run for `seconds`.
    func pause(_ seconds: Double) { BusConnection.pump(seconds: seconds) { false } }
}

extension HelperProcess {
    /// The first line so far that starts with `prefix`, waiting (and pumping) for it.
    @discardableResult
    func waitForLine(_ prefix: String, seconds: Double = 15) -> String? {
        waitForLine(seconds: seconds) { $0.hasPrefix(prefix) }
    }

    /// Everything printed so far, for failure messages.
    var output: String { lines.joined(separator: "\n") }
}
