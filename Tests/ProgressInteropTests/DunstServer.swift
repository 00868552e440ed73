import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport

/// dunst (Debian's 1.9) under its own Xvfb, on the test's private bus, with the test's
/// scratch HOME and XDG_RUNTIME_DIR. Both run under a shell that waits on a pipe from the
/// test process: when the test ends or crashes the pipe closes and the shell kills them.
///
/// dunst 1.9's history (`dunstctl history`) has no urgency field, so the configuration
/// formats a critical notification's text as "critical: <summary>", which the history's
/// `message` keeps; and the history holds closed notifications only (`close-all` first).
final class DunstServer {
    private let shell = Process()
    private let lifeline = Pipe()
    private let directory: URL
    private let environment: [String: String]

    init(environment: [String: String], scratch: URL, bus: BusConnection) throws {
        directory = scratch.appendingPathComponent("dunst")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try """
            [global]
                format = "%s\\n%b"
            [urgency_critical]
                format = "critical: %s\\n%b"
            """.write(to: directory.appendingPathComponent("dunstrc"), atomically: true, encoding: .utf8)
        self.environment = environment
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = [
            "-c",
            """
            dir="$0"
            # -displayfd: Xvfb picks a free display and writes its number, so parallel runs never collide.
            Xvfb -displayfd 3 -nolisten tcp 3>"$dir/display" >"$dir/xvfb.log" 2>&1 & x=$!
            tries=0
            while [ ! -s "$dir/display" ] && [ $tries -lt 200 ]; do sleep 0.05; tries=$((tries + 1)); done
            DISPLAY=":$(cat "$dir/display")" dunst -conf "$dir/dunstrc" >"$dir/dunst.log" 2>&1 & d=$!
            read -r _
            kill $d $x 2>/dev/null
            wait
            """,
            directory.path,
        ]
        shell.environment = environment
        shell.standardInput = lifeline
        try shell.run()
        let owned = BusConnection.pump(seconds: 20) {
            let reply = try? bus.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                      "NameHasOwner", [.string("org.freedesktop.Notifications")])
            return reply?.first?.bool == true
        }
        guard owned else {
            stop()
            throw TestSupportError("dunst did not take org.freedesktop.Notifications: \(log)")
        }
    }

    var log: String {
        ["xvfb.log", "dunst.log"].map {
            (try? String(contentsOf: directory.appendingPathComponent($0), encoding: .utf8)) ?? ""
        }.joined(separator: "\n")
    }

    /// `dunstctl <arguments>`; its output.
    @discardableResult
    func dunstctl(_ arguments: String...) throws -> String {
        let result = try CommandResult.run("dunstctl", arguments, environment: environment)
        guard result.status == 0 else { throw TestSupportError("dunstctl \(arguments) failed: \(result.errors)") }
        return result.output
    }

    var displayedCount: Int {
        Int(((try? dunstctl("count", "displayed")) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// Closes what is displayed and reads the history, newest first: each entry's fields.
    func closeAllAndReadHistory() throws -> [[String: Any]] {
        try dunstctl("close-all")
        // close-all is a call; the history is read in the next one, after dunst has moved them.
        let json = try dunstctl("history")
        guard let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
              let data = object["data"] as? [[Any]], let entries = data.first as? [[String: Any]] else {
            throw TestSupportError("dunstctl history printed \(json)")
        }
        return entries.map { entry in entry.compactMapValues { ($0 as? [String: Any])?["data"] } }
    }

    func stop() {
        guard shell.isRunning else { return }
        try? lifeline.fileHandleForWriting.close()
        shell.waitUntilExit()
    }

    deinit { stop() }
}
