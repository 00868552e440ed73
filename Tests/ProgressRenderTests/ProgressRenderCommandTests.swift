import Foundation
import ProgressCommandLine
import ProgressBus
import ProgressTestSupport
import XCTest

final class ProgressRenderCommandTests: DaemonTestCase {
    override var startsBusAtSetUp: Bool { false }

    func run(
        _ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> CommandResult {
        try CommandResult.run(BuildProducts.url(of: "progress-render").path, arguments, environment: environment)
    }

    func testValuesToFilesAndUsageErrors() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("render-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let ring = directory.appendingPathComponent("ring.png").path
        XCTAssertEqual(try run([
            "--style", "ring", "--fraction", "0.42", "--size", "128x128", "--scale", "2", "--percent-label", "-o", ring,
        ]).status, 0)
        XCTAssertEqual(Array(try Data(contentsOf: URL(fileURLWithPath: ring)).prefix(4)), [0x89, 0x50, 0x4E, 0x47])
        let svg = directory.appendingPathComponent("bar.svg").path
        XCTAssertEqual(try run(["--fraction", "0.5", "-o", svg, "--locale", "ar_EG", "--percent-label"]).status, 0)
        XCTAssertTrue(try String(contentsOfFile: svg, encoding: .utf8).contains("<svg"))
        XCTAssertEqual(try run(["--list-styles"]).output, "bar\nstriped\nring\npulse\nskin\n")
        let bad = try run(["--fraction", "2", "-o", ring])
        XCTAssertEqual(bad.status, 64)
        XCTAssertEqual(bad.errors, "progress-render: fraction 2.0 is outside 0.0...1.0\n")
        XCTAssertEqual(try run(["--fraction", "0.5"]).errors, "progress-render: missing -o FILE\n")
        XCTAssertTrue(try run(["--help"]).output.hasPrefix("Usage: progress-render"))
    }

    func testALiveTask() throws {
        try startDaemon()
        try start("copy", [("fraction", .double(0.6))])
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("task-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let result = try run(
            ["--task", "copy", "--style", "striped", "--percent-label", "-o", file], environment: bus.environment)
        XCTAssertEqual(result.status, 0, result.errors)
        let missing = try run(["--task", "ghost", "-o", file], environment: bus.environment)
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.errors.contains("no task is named 'ghost'"), missing.errors)
    }
}
