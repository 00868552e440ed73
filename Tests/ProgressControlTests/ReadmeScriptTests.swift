import Foundation
import ProgressTestSupport
import XCTest

/// The README's "From a shell script" examples, each run as written, each printing exactly
/// the text block that follows it.
final class ReadmeScriptTests: XCTestCase {
    func testEveryScriptPrintsWhatTheReadmeSays() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let region = try XCTUnwrap(readme.components(separatedBy: "<!-- shell-scripts -->").dropFirst().first?
            .components(separatedBy: "<!-- /shell-scripts -->").first)
        let scripts = region.components(separatedBy: "```sh\n").dropFirst().map { block -> (String, String) in
            let script = block.components(separatedBy: "```")[0]
            let output = block.components(separatedBy: "```text\n").dropFirst().first?.components(separatedBy: "```")[0] ?? ""
            return (script, output)
        }
        XCTAssertEqual(scripts.count, 5)

        let bus = try PrivateBus()
        defer { bus.stop() }
        let daemon = try DaemonProcess(bus: bus)
        defer { daemon.stop() }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("scripts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        var environment = bus.environment
        environment["LC_ALL"] = "C.UTF-8"
        environment["PATH"] = BuildProducts.url(of: "progressctl").deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        for (script, expected) in scripts {
            let result = try CommandResult.run("/bin/bash", ["-euo", "pipefail", "-c", "cd \"$0\" && " + script, work.path], environment: environment)
            XCTAssertEqual(result.status, 0, "\(script)\n\(result.errors)")
            XCTAssertEqual(result.output, expected, script)
            XCTAssertEqual(result.errors, "", script)
        }
    }
}
