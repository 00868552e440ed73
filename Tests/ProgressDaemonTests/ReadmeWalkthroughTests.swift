import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// Runs every command of the gdbus walk-throughs (the README's first task, then docs/api.md's
/// walk-through), as written, against a private bus, and checks each `# prints:` line.
/// `gdbus monitor` runs in the background, as in the second terminal docs/api.md asks for,
/// and must have seen the task finish.
final class ReadmeWalkthroughTests: DaemonTestCase {
    struct Step {
        var command: String
        var expected: String?
    }

    static func walkthroughSteps() throws -> [Step] {
        var steps: [Step] = []
        var inBlock = false
        var pending = ""
        // Every region from a walkthrough marker to its end marker, page by page, in order.
        let pages = try ManualPages.regions("walkthrough")
        XCTAssertEqual(pages.map(\.page), ["README.md", "docs/api.md"])
        for line in pages.flatMap(\.regions).joined(separator: "\n")
            .split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                inBlock = line == "```sh"
                continue
            }
            guard inBlock else { continue }
            if line.hasPrefix("# prints: ") {
                steps[steps.count - 1].expected = String(line.dropFirst("# prints: ".count))
            } else if line.hasSuffix("\\") {
                pending += line.dropLast() + " "
            } else if !line.trimmingCharacters(in: .whitespaces).isEmpty {
                steps.append(Step(command: pending + line))
                pending = ""
            }
        }
        return steps
    }

    func testTheWalkthroughRunsAsWritten() throws {
        let steps = try Self.walkthroughSteps()
        XCTAssertGreaterThan(steps.count, 26)
        XCTAssertEqual(
            steps.filter { $0.expected != nil }.count, steps.count - 1,
            "every command but the monitor says what it prints")

        var monitors: [(Process, URL)] = []
        defer { for (process, _) in monitors where process.isRunning { process.terminate() } }
        for step in steps {
            if step.command.hasPrefix("gdbus monitor") {
                monitors.append(try startInBackground(step.command))
                continue
            }
            let result = try CommandResult.run(
                "/bin/bash", ["-o", "pipefail", "-c", step.command], environment: bus.environment)
            XCTAssertEqual(result.status, 0, "\(step.command)\n\(result.errors)")
            if let expected = step.expected {
                XCTAssertEqual(result.output.trimmingCharacters(in: .newlines), expected, step.command)
            }
        }
        XCTAssertEqual(monitors.count, 1)
        for (process, output) in monitors {
            let seen = BusConnection.pump(seconds: 10) {
                ((try? String(contentsOf: output, encoding: .utf8)) ?? "").contains("'State': <'finished'>")
            }
            process.terminate()
            XCTAssertTrue(
                seen, "gdbus monitor saw the task finish: \((try? String(contentsOf: output, encoding: .utf8)) ?? "")")
        }
    }

    /// docs/api.md's Python subscriber, run as written with python3-dbus: an independent
    /// D-Bus implementation receiving the daemon's unicast signals.
    func testThePythonSubscriberHearsAnnouncements() throws {
        let blocks = ManualPages.blocks("python", in: try ManualPages.text("docs/api.md"))
        XCTAssertEqual(blocks.count, 1)
        let python = try XCTUnwrap(blocks.first?.code)
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("python-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-u", "-c", python]
        process.environment = bus.environment
        process.standardOutput = try FileHandle(forWritingTo: output)
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        var attempt = 0
        let heard = BusConnection.pump(seconds: 15) {
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            if text.contains("polite") { return true }
            // Until the subscriber is listening, keep giving it something to hear.
            attempt += 1
            if attempt % 20 == 0 { _ = try? self.start("python \(attempt)", [("title", .string("Essai"))]) }
            return false
        }
        XCTAssertTrue(heard, "the subscriber printed nothing")
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        XCTAssertTrue(text.contains("polite Essai\u{A0}: 0 pour cent"), text)
    }

    /// Starts a long-running command and waits until gdbus monitor says it is watching.
    private func startInBackground(_ command: String) throws -> (Process, URL) {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("monitor-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", "exec " + command]
        process.environment = bus.environment
        process.standardOutput = try FileHandle(forWritingTo: output)
        try process.run()
        let ready = BusConnection.pump(seconds: 10) {
            ((try? String(contentsOf: output, encoding: .utf8)) ?? "").contains("is owned by")
        }
        XCTAssertTrue(ready, "gdbus monitor started")
        return (process, output)
    }
}
