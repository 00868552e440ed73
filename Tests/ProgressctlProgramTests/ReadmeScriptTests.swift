import Foundation
import ProgressTestSupport
import XCTest

/// The shell examples of the README and of docs/ (their `<!-- shell-scripts -->` regions),
/// each run as written, each printing exactly the text block that follows it. Each page's
/// scripts run in order against a daemon of their own, as a reader would try them.
final class ReadmeScriptTests: DaemonTestCase {
    override var startsDaemonAtSetUp: Bool { false }

    func testEveryScriptPrintsWhatThePageSays() throws {
        let pages = try ManualPages.regions("shell-scripts")
        let counts = Dictionary(uniqueKeysWithValues: pages.map { page in
            (page.page, page.regions.flatMap { ManualPages.blocks("sh", in: $0) }.count)
        })
        XCTAssertEqual(counts, ["README.md": 1, "docs/scripts.md": 5])
        for page in pages {
            try run(page.regions.flatMap { ManualPages.blocks("sh", in: $0) }, of: page.page)
        }
    }

    private func run(_ scripts: [(code: String, output: String)], of page: String) throws {
        // A state directory of the page's own: its daemon starts with no tasks.
        try startDaemon(["--state-directory", bus.scratchFile("state").path])
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("scripts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        var environment = bus.environment
        environment["LC_ALL"] = "C.UTF-8"
        environment["PATH"] = BuildProducts.url(of: "progressctl").deletingLastPathComponent().path + ":"
            + (environment["PATH"] ?? "/usr/bin:/bin")
        for (script, expected) in scripts {
            let result = try CommandResult.run(
                "/bin/bash", ["-euo", "pipefail", "-c", "cd \"$0\" && " + script, work.path], environment: environment)
            XCTAssertEqual(result.status, 0, "\(page): \(script)\n\(result.errors)")
            XCTAssertEqual(result.output, expected, "\(page): \(script)")
            XCTAssertEqual(result.errors, "", "\(page): \(script)")
        }
    }
}
