import Foundation
import ProgressRender
import ProgressTestSupport
import XCTest

/// Each style drawn as the references in References/ say, within a small tolerance.
/// The renderer runs as a process of its own with the bundled fonts.conf, so text is the
/// same on every machine. On a difference, the drawn image and a diff (red where they
/// differ) are written to .build/reference-failures/. UPDATE_REFERENCES=1 rewrites them.
final class ReferenceImageTests: XCTestCase {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("References")
    static let failures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/reference-failures")

    static let cases: [(String, [String])] = [
        ("bar-light", ["--fraction", "0.42", "--percent-label"]),
        ("bar-thin-dark", ["--fraction", "0.7", "--variant", "bar", "--theme", "dark"]),
        ("striped-label-past-fill",
         ["--style", "striped", "--fraction", "0.08", "--percent-label", "--state", "failed"]),
        ("striped-fr",
         ["--style", "striped", "--fraction", "0.63", "--percent-label", "--locale", "fr_FR", "--phase", "0.3"]),
        ("striped-ar", ["--style", "striped", "--fraction", "0.5", "--percent-label", "--locale", "ar_EG"]),
        ("ring", ["--style", "ring", "--fraction", "0.75", "--size", "96x96", "--percent-label"]),
        ("ring-high-contrast", ["--style", "ring", "--fraction", "0.3", "--size", "96x96", "--theme", "high-contrast"]),
        ("pulse-scale-2", ["--style", "pulse", "--phase", "0.6", "--scale", "2", "--size", "200x16"]),
    ]

    static func largestChannelDifference(_ a: UInt32, _ b: UInt32) -> Int {
        var largest = 0
        for shift: UInt32 in [0, 8, 16, 24] {
            let first = Int((a >> shift) & 0xFF)
            let second = Int((b >> shift) & 0xFF)
            largest = max(largest, abs(first - second))
        }
        return largest
    }

    func testEveryStyleMatchesItsReference() throws {
        let update = ProcessInfo.processInfo.environment["UPDATE_REFERENCES"] == "1"
        var environment = ProcessInfo.processInfo.environment
        environment["FONTCONFIG_FILE"] = Self.directory.appendingPathComponent("fonts.conf").path
        environment["LC_ALL"] = "C.UTF-8"
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("references-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        for (name, arguments) in Self.cases {
            let drawn = work.appendingPathComponent("\(name).png")
            let result = try CommandResult.run(
                BuildProducts.url(of: "progress-render").path, arguments + ["-o", drawn.path], environment: environment)
            XCTAssertEqual(result.status, 0, "\(name): \(result.errors)")
            let reference = Self.directory.appendingPathComponent("\(name).png")
            if update {
                try? FileManager.default.removeItem(at: reference)
                try FileManager.default.copyItem(at: drawn, to: reference)
                continue
            }
            let expected = try Raster(png: Array(try Data(contentsOf: reference)))
            let actual = try Raster(png: Array(try Data(contentsOf: drawn)))
            XCTAssertEqual(actual.width, expected.width, name)
            XCTAssertEqual(actual.height, expected.height, name)
            guard actual.width == expected.width, actual.height == expected.height else { continue }
            var diff: [UInt32] = []
            var differing = 0
            for (a, b) in zip(actual.pixels, expected.pixels) {
                let off = Self.largestChannelDifference(a, b) > 24
                if off { differing += 1 }
                diff.append(off ? 0xFFFF_0000 : (a & 0x00FF_FFFF) | 0x4000_0000)
            }
            // Up to 0.5 % of pixels may differ beyond the tolerance (antialiasing, rounding).
            if differing > actual.pixels.count / 200 {
                try FileManager.default.createDirectory(at: Self.failures, withIntermediateDirectories: true)
                try? FileManager.default.removeItem(at: Self.failures.appendingPathComponent("\(name)-actual.png"))
                try FileManager.default.copyItem(
                    at: drawn, to: Self.failures.appendingPathComponent("\(name)-actual.png"))
                try Data(PNGEncoder.encode(diff, width: actual.width, height: actual.height))
                    .write(to: Self.failures.appendingPathComponent("\(name)-diff.png"))
                XCTFail("\(name): \(differing) of \(actual.pixels.count) pixels differ; see \(Self.failures.path)")
            }
        }
    }
}
