import Foundation
import ProgressBus
import ProgressTestSupport
import XCTest

/// cairo, pango and libpng are loaded when something is first drawn (Sources/CCairoLoader),
/// in the build `make test` uses as in the package: no program names them as needed, a
/// program that does not draw (progressctl's --version, the daemon serving calls) opens
/// none of them, and one that draws opens them then.
final class DrawingLibraryLoadTests: DaemonTestCase {
    /// The sonames of the drawing libraries and of what only they need.
    static let drawingLibraries = [
        "libcairo.so.2", "libpango-1.0.so.0", "libpangocairo-1.0.so.0", "libpangoft2-1.0.so.0", "libharfbuzz.so.0",
        "libpng16.so.16", "libfontconfig.so.1", "libfreetype.so.6", "libpixman-1.so.0",
    ]

    /// The drawing libraries named in `text` (a needed list, LD_DEBUG's output, a maps file).
    func drawingLibraries(in text: String) -> [String] {
        Self.drawingLibraries.filter { text.contains($0) }
    }

    func testNoProgramNamesADrawingLibraryAsNeeded() throws {
        for program in ["progressd", "progressctl", "progress-render", "progress"] {
            let path = BuildProducts.url(of: program).path
            let dynamic = try CommandResult.run("/usr/bin/readelf", ["--dynamic", path], environment: [:])
            XCTAssertEqual(dynamic.status, 0, dynamic.errors)
            XCTAssertTrue(
                dynamic.output.contains("libglib-2.0.so.0"), "readelf lists what \(program) needs: \(dynamic.output)")
            XCTAssertEqual(drawingLibraries(in: dynamic.output), [], "\(program) is linked against drawing libraries")
        }
    }

    /// `LD_DEBUG=files` makes the dynamic loader say on stderr each library it opens.
    func opened(_ program: String, _ arguments: [String], environment: [String: String] = [:]) throws -> CommandResult {
        var environment = environment
        environment["LD_DEBUG"] = "files"
        environment["PATH"] = "/usr/bin:/bin"
        return try CommandResult.run(BuildProducts.url(of: program).path, arguments, environment: environment)
    }

    func testAProgramThatDoesNotDrawOpensNoDrawingLibrary() throws {
        let version = try opened("progressctl", ["--version"])
        XCTAssertEqual(version.status, 0, version.errors)
        XCTAssertTrue(
            version.errors.contains("libglib-2.0.so.0"), "LD_DEBUG shows what is opened: \(version.errors.prefix(400))")
        XCTAssertEqual(drawingLibraries(in: version.errors), [], "progressctl --version opened drawing libraries")

        let list = try opened("progressctl", ["list"], environment: bus.environment)
        XCTAssertEqual(list.status, 0, list.errors)
        XCTAssertEqual(drawingLibraries(in: list.errors), [], "progressctl list opened drawing libraries")

        // The daemon after serving calls, read from what it has mapped.
        try start("copy", [("fraction", .double(0.4))])
        XCTAssertEqual(try manager("List").first?.strings, ["copy"])
        // Read to the end: /proc's files say they are empty.
        let mapsFile = try XCTUnwrap(FileHandle(forReadingAtPath: "/proc/\(daemon.process.processIdentifier)/maps"))
        let maps = String(decoding: mapsFile.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(maps.contains("libglib-2.0.so.0"), "the daemon's maps list its libraries")
        XCTAssertEqual(drawingLibraries(in: maps), [], "the daemon opened drawing libraries without drawing")
    }

    /// The other side: drawing opens them, so the checks above can see them.
    func testDrawingOpensThem() throws {
        let image = FileManager.default.temporaryDirectory.appendingPathComponent("loaded-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: image) }
        let drawn = try opened("progress-render", ["--fraction", "0.5", "--percent-label", "-o", image.path])
        XCTAssertEqual(drawn.status, 0, drawn.errors)
        XCTAssertTrue(
            drawn.errors.contains("libcairo.so.2") && drawn.errors.contains("libpng16.so.16"), "drawing opened them")
        XCTAssertTrue(FileManager.default.fileExists(atPath: image.path))
    }
}
