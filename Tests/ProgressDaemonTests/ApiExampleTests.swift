import Foundation
import ProgressBus
import ProgressTestSupport
import XCTest

/// docs/api.md's programs that report progress (Python with PyGObject, GJS, C with GDBus,
/// shell with gdbus), each run as the page's `<!-- examples -->` block writes it, from a
/// folder that has the repository's docs/, against the daemon; the C one compiled there
/// with cc and pkg-config's gio-2.0.
final class ApiExampleTests: DaemonTestCase {
    func testEveryExampleProgramPrintsWhatThePageSays() throws {
        let pages = try ManualPages.regions("examples")
        XCTAssertEqual(pages.map(\.page), ["docs/api.md"])
        let blocks = try XCTUnwrap(pages.first?.regions.first.map { ManualPages.blocks("sh", in: $0) })
        XCTAssertEqual(blocks.count, 1)
        let (commands, expected) = try XCTUnwrap(blocks.first)
        let lines = commands.split(separator: "\n")
        XCTAssertEqual(lines.count, 4)
        // Every file under docs/examples/ is one the block runs, so none is left untested.
        let files = try FileManager.default.contentsOfDirectory(
            atPath: ManualPages.root.appendingPathComponent("docs/examples").path)
        for file in files {
            XCTAssertTrue(
                commands.contains("docs/examples/\(file)"), "docs/examples/\(file) is not run by the page's block")
        }

        let work = FileManager.default.temporaryDirectory.appendingPathComponent("examples-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        try FileManager.default.createSymbolicLink(at: work.appendingPathComponent("docs"),
                                                   withDestinationURL: ManualPages.root.appendingPathComponent("docs"))
        var environment = bus.environment
        // Debian's python3, which has python3-gi, as on the machines the page is for.
        environment["PATH"] = "/usr/bin:/bin"
        environment["LC_ALL"] = "C.UTF-8"
        // One command at a time, so that a failure names the program.
        for (line, output) in zip(lines, expected.split(separator: "\n", omittingEmptySubsequences: false)) {
            let result = try CommandResult.run(
                "/bin/sh", ["-c", "cd \"$0\" && " + line, work.path], environment: environment)
            XCTAssertEqual(result.status, 0, "\(line)\n\(result.errors)")
            XCTAssertEqual(result.output, output + "\n", String(line))
            XCTAssertEqual(result.errors, "", String(line))
        }
        XCTAssertEqual(expected.split(separator: "\n").count, lines.count, "one line printed per program")
        XCTAssertEqual(try property("photos", "State").string, "finished")
    }
}
