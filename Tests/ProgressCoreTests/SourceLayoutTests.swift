import Foundation
import XCTest

/// The house's layout rules, held so that they cannot slip back: no line of Package.swift,
/// Sources or Tests is over 120 columns, and no Swift file of Sources is over 400 lines. A column is a UTF-8
/// byte, as `awk 'length > 120'` (Debian's mawk) counts it, so this test and the shell agree.
final class SourceLayoutTests: XCTestCase {
    static let repository = ModuleGraphTests.repository
    static let maxColumns = 120
    static let maxSourceLines = 400
    static let extensions: Set<String> = ["swift", "c", "h"]

    /// The .swift, .c and .h files under `folder`, as paths from the repository, sorted.
    static func files(under folder: String) throws -> [String] {
        let base = repository.appendingPathComponent(folder)
        let walk = try XCTUnwrap(
            FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil), "can not read \(base.path)")
        let prefix = repository.standardizedFileURL.path + "/"
        return walk.compactMap { ($0 as? URL)?.standardizedFileURL }
            .filter { extensions.contains($0.pathExtension) }
            .map { String($0.path.dropFirst(prefix.count)) }
            .sorted()
    }

    func testNoLineIsOverOneHundredTwentyColumns() throws {
        let files = try ["Package.swift"] + Self.files(under: "Sources") + Self.files(under: "Tests")
        XCTAssertGreaterThan(files.count, 300, "the files of Sources and Tests were not found")
        var long: [String] = []
        for path in files {
            let text = try String(contentsOf: Self.repository.appendingPathComponent(path), encoding: .utf8)
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.utf8.count > Self.maxColumns {
                long.append("\(path):\(index + 1): \(line.utf8.count) columns")
            }
        }
        XCTAssertTrue(long.isEmpty, "lines over \(Self.maxColumns) columns:\n" + long.joined(separator: "\n"))
    }

    func testNoSourceFileIsOverFourHundredLines() throws {
        var large: [String] = []
        for path in try Self.files(under: "Sources") where path.hasSuffix(".swift") {
            let data = try Data(contentsOf: Self.repository.appendingPathComponent(path))
            let lines = data.reduce(0) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
            if lines > Self.maxSourceLines { large.append("\(path): \(lines) lines") }
        }
        XCTAssertTrue(large.isEmpty, "Swift files over \(Self.maxSourceLines) lines:\n" + large.joined(separator: "\n"))
    }
}
