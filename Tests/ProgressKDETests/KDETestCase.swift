import Foundation
import ProgressBus
import ProgressClient
import ProgressModel
import ProgressTestSupport
import XCTest

/// The daemon fixture and the KDE helpers of this folder.
class KDETestCase: DaemonTestCase {

    static let helpersDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("helpers")
    static let xmlPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/ProgressKDE/org.kde.JobViews.xml").path

    /// A Python helper of this folder, with python3-dbus (Debian's /usr/bin/python3, not a pyenv one).
    func helper(_ script: String, _ arguments: [String] = [], readsCommands: Bool = true) throws -> HelperProcess {
        let helper = try HelperProcess(
            "/usr/bin/python3", [Self.helpersDirectory.appendingPathComponent(script).path] + arguments,
            environment: bus.environment, readsCommands: readsCommands)
        helpers.append(helper)
        return helper
    }

    /// The JSON events a helper printed, decoded.
    func events(_ helper: HelperProcess, _ kind: String? = nil) -> [[String: Any]] {
        helper.lines.compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                return nil
            }
            return kind == nil || object["event"] as? String == kind ? object : nil
        }
    }

    /// Waits for an event of `kind` that satisfies `condition`.
    @discardableResult
    func waitForEvent(
        _ helper: HelperProcess, _ kind: String, seconds: Double = 10,
        where condition: ([String: Any]) -> Bool = { _ in true },
        file: StaticString = #filePath, line: UInt = #line
    ) -> [String: Any]? {
        var found: [String: Any]?
        _ = BusConnection.pump(seconds: seconds) {
            found = events(helper, kind).first(where: condition)
            return found != nil
        }
        if found == nil {
            XCTFail("no \(kind) event; helper printed: \(helper.lines.suffix(8))", file: file, line: line)
        }
        return found
    }

    /// requestView from a process of its own (gdbus), which leaves at once: what it prints,
    /// the view's path or the error.
    func requestViewFromAnotherProcess(_ entry: String) throws -> String {
        let result = try CommandResult.run(
            "gdbus", ["call", "--session", "--dest", "org.kde.JobViewServer", "--object-path", "/JobViewServer",
                      "--method", "org.kde.JobViewServerV2.requestView", entry, "3", "{}"],
            environment: bus.environment)
        return (result.output + result.errors).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func daemonUniqueName() throws -> String {
        let reply = try client.call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner",
            [.string(BusNames.busName)])
        return reply.first?.string ?? ""
    }
}
