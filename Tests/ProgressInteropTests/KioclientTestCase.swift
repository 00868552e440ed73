import Foundation
import ProgressBus
import ProgressClient
import ProgressModel
import ProgressTestSupport
import XCTest

/// progressd serving KDE jobs to real clients: a kioclient copying a slow HTTP download on a
/// private bus. KDEJobInteropTests runs KF5's kioclient5 on this machine (`make interop`
/// installs kde-cli-tools), KF6JobInteropTests KF6's kioclient in a Debian 13 root.
class KioclientTestCase: DaemonTestCase {
    var scratch: URL!
    static let helpers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("helpers")
    let task = "kde/org.kde.kioclient/1"
    /// The Debian 13 root the client, its web server, progressd and progressctl run in; nil: this machine.
    var debian13: Debian13System?
    var kioclient: String { "/usr/bin/kioclient5" }

    override func setUpWithError() throws {
        guard ProcessInfo.processInfo.environment["PROGRESSD_INTEROP"] == "1" else {
            throw XCTSkip("real-client tests run with `make interop`")
        }
        try super.setUpWithError()
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("progressd-kde-\(UUID().uuidString)")
        for folder in ["home", "runtime", "config", "files"] {
            try FileManager.default.createDirectory(
                at: scratch.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        try FileManager.default.setAttributes(
            [.posixPermissions: 0o700], ofItemAtPath: scratch.appendingPathComponent("runtime").path)
        // KIO keeps an aborted download's .part when it holds more than MinimumKeepSize bytes
        // (5000 by default, KProtocolManager); this makes a cancelled copy leave nothing behind.
        try "MinimumKeepSize=2000000000\n".write(
            to: scratch.appendingPathComponent("config/kioslaverc"), atomically: true, encoding: .utf8)
    }

    override func tearDown() {
        if let scratch, testRun?.hasSucceeded == false {
            for index in 0..<4 {
                if let text = try? String(
                    contentsOf: scratch.appendingPathComponent("stderr-\(index)"), encoding: .utf8), !text.isEmpty {
                    print("helper \(index) stderr:\n\(text.suffix(1500))")
                }
            }
        }
        super.tearDown()
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
    }

    var environment: [String: String] {
        bus.environment.merging([
            "HOME": scratch.appendingPathComponent("home").path,
            "XDG_RUNTIME_DIR": scratch.appendingPathComponent("runtime").path,
            "XDG_CONFIG_HOME": scratch.appendingPathComponent("config").path,
            "QT_QPA_PLATFORM": "offscreen",
        ]) { $1 }
    }

    func run(_ executable: String, _ arguments: [String], readsCommands: Bool = false) throws -> HelperProcess {
        let errors = scratch.appendingPathComponent("stderr-\(helpers.count)")
        let helper = try debian13?.helper(
            executable, arguments, environment: environment, readsCommands: readsCommands, errorFile: errors)
            ?? HelperProcess(
                executable, arguments, environment: environment, readsCommands: readsCommands, errorFile: errors)
        helpers.append(helper)
        return helper
    }

    /// kioclient copying 8 MB at about 1.3 MB/s (64 KiB every 50 ms).
    func startCopy() throws -> (copy: HelperProcess, destination: URL) {
        let web = try run(
            "/usr/bin/python3", [Self.helpers.appendingPathComponent("trickle-http.py").path, "8000000", "0.05"],
            readsCommands: true)
        let port = try XCTUnwrap(web.waitForLine { $0.hasPrefix("port ") }?.dropFirst(5))
        let destination = scratch.appendingPathComponent("files/big.bin")
        let copy = try run(
            kioclient, ["--interactive", "copy", "http://127.0.0.1:\(port)/big.bin", destination.absoluteString])
        return (copy, destination)
    }

    func taskProperty(_ name: String, _ property: String) -> BusValue? {
        guard let path = try? BusNames.taskPath(TaskName(name)) else { return nil }
        return (try? client.call(BusNames.busName, path, BusNames.propertiesInterface, "Get",
                                 [.string(BusNames.taskInterface), .string(property)]))?.first?.unboxed
    }

    func waitFor(_ what: String, seconds: Double = 20, _ condition: () -> Bool) {
        XCTAssertTrue(BusConnection.pump(seconds: seconds, until: condition), "timed out waiting for \(what)")
    }

    func progressctl(_ arguments: [String]) throws -> CommandResult {
        if let debian13 { return try debian13.run("/usr/bin/progressctl", arguments, environment: bus.environment) }
        return try CommandResult.run(BuildProducts.url(of: "progressctl").path, arguments, environment: bus.environment)
    }

    /// The copy becomes a task with its bytes, total and source; `progressctl cancel` stops
    /// the client, whose partial file goes, and the task reads cancelled.
    func checkACopyIsATaskAndProgressctlCancelStopsIt() throws {
        let started = Date()
        let (copy, destination) = try startCopy()
        waitFor("the copy's task with bytes") {
            if case .uint64(let completed)? = taskProperty(task, "Completed") { return completed > 0 }
            return false
        }
        print("\(kioclient)'s job became a task after \(String(format: "%.2f", Date().timeIntervalSince(started))) s")
        XCTAssertEqual(taskProperty(task, "Total"), .uint64(8_000_000))
        XCTAssertEqual(taskProperty(task, "Unit"), .string("bytes"))
        XCTAssertEqual(taskProperty(task, "AppId"), .string("org.kde.kioclient"))
        XCTAssertEqual(taskProperty(task, "Cancellable"), .bool(true))
        if case .double(let fraction)? = taskProperty(task, "Fraction") {
            XCTAssertGreaterThan(fraction, 0)
        } else {
            XCTFail("no fraction")
        }
        if case .string(let detail)? = taskProperty(task, "Detail") {
            XCTAssertTrue(detail.contains("8 MB"), detail)
        } else {
            XCTFail("no detail")
        }
        if case .string(let message)? = taskProperty(task, "Message") {
            XCTAssertTrue(message.contains("127.0.0.1"), message)
        }

        let cancel = try progressctl(["cancel", task])
        XCTAssertEqual(cancel.status, 0, cancel.errors)
        let status = copy.waitForExit(seconds: 20)
        XCTAssertNotNil(status, "\(kioclient) did not stop")
        XCTAssertNotEqual(status, 0, "a cancelled copy exits non-zero")
        waitFor("the task to read cancelled") { taskProperty(task, "State") == .string("cancelled") }
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path))
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: destination.path + ".part"), "the partial file is removed")
        print("cancel to \(kioclient)'s exit: within "
            + "\(String(format: "%.2f", Date().timeIntervalSince(started))) s of the start")
    }
}
