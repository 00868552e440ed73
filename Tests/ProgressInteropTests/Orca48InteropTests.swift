import Foundation
import ProgressTestSupport
import XCTest

/// Debian 13's Orca 48 speaks a task's percent: scripts/orca-check.sh (Orca headless under
/// Xvfb, on a private session bus and accessibility bus, its speech in its debug log) inside a
/// Debian 13 root with the Debian 13 package installed by apt, driving one task from 5 % to done
/// with the package's progressctl. Orca speaks what progressd's progress bar on the
/// accessibility bus says, with "Speak updates" for all applications (progressBarVerbosity 0).
final class Orca48InteropTests: XCTestCase {
    var errors: URL!

    override func setUpWithError() throws {
        errors = FileManager.default.temporaryDirectory.appendingPathComponent(
            "progressd-orca48-\(UUID().uuidString).log")
    }

    override func tearDown() {
        if let errors { try? FileManager.default.removeItem(at: errors) }
    }

    func testOrca48SpeaksATasksPercent() throws {
        let debian13 = try Debian13System(errors: errors)
        let version = try debian13.run("/usr/bin/orca", ["--version"], environment: ["HOME": "/root"])
        XCTAssertTrue(version.output.contains("Orca version 48."), version.output)
        let check = try debian13.run(
            "/bin/sh", [Debian13System.repository.appendingPathComponent("scripts/orca-check.sh").path, "/usr/bin"],
            environment: ["ORCA_DISPLAY": "94"])
        let said = check.output.split(separator: "\n").filter { $0.hasPrefix("SPEECH OUTPUT: ") }
        // It starts at 0; progressctl sets these, 1.5 s apart (Orca speaks at most one a second).
        let set = [0, 5, 10, 20, 35, 50, 65, 80, 95, 100]
        let percents = said.compactMap { line -> Int? in
            guard let range = line.range(of: #"[0-9]+ percent"#, options: .regularExpression) else { return nil }
            return Int(line[range].split(separator: " ")[0])
        }
        XCTAssertGreaterThanOrEqual(
            Set(percents).count, 3, "Orca spoke the task's percent: \(said)\n\(check.errors.suffix(2_000))")
        XCTAssertEqual(percents.filter { !set.contains($0) }, [], "only percents the task had: \(said)")
        XCTAssertEqual(percents, percents.sorted(), "in the order they came: \(said)")
        // Orca 45 and later also speak the AT-SPI Announcement events progressd sends, which
        // name the task ("Backing up home: 95 percent, about 5 seconds left", "… finished").
        XCTAssertTrue(
            said.contains { $0.contains("Backing up home") && $0.contains("percent") }, "an announcement: \(said)")
    }
}
