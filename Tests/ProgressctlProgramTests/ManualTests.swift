import Foundation
import ProgressTestSupport
import XCTest

/// The README and docs/ as a manual: the README stays a five-minute read, each page says
/// whom it is for, every relative link and anchor leads somewhere, and the reference parts
/// are what scripts/api-reference.py writes from the interface XML.
final class ManualTests: XCTestCase {
    func testTheReadmeIsShortAndEndsWithTheLicense() throws {
        let readme = try ManualPages.text("README.md")
        XCTAssertLessThanOrEqual(readme.split(separator: "\n", omittingEmptySubsequences: false).count, 250)
        let headings = readme.split(separator: "\n").filter { $0.hasPrefix("## ") }
        XCTAssertEqual(headings.last, "## License")
        for page in ManualPages.paths.dropFirst() {
            XCTAssertTrue(readme.contains("](\(page))"), "the README does not link to \(page)")
        }
    }

    /// A title, then one line in italics that begins "For": who the page is for.
    func testEveryPageSaysWhomItIsFor() throws {
        let pages = ManualPages.paths.dropFirst()
        XCTAssertGreaterThanOrEqual(pages.count, 9)
        for page in pages {
            let lines = try ManualPages.text(page).split(separator: "\n", omittingEmptySubsequences: false)
            XCTAssertTrue(lines.first?.hasPrefix("# ") == true, "\(page) starts with its title")
            XCTAssertTrue(
                lines.count > 2 && lines[2].hasPrefix("*For "), "\(page): the line after the title says whom it is for")
        }
    }

    func testEveryRelativeLinkLeadsToAFileAndItsAnchor() throws {
        var checked = 0
        for page in ManualPages.paths {
            let folder = ManualPages.root.appendingPathComponent(page).deletingLastPathComponent()
            for target in Self.links(in: try ManualPages.text(page))
            where !target.contains("://") && !target.hasPrefix("mailto:") {
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                    .map(String.init)
                let file = parts[0].isEmpty
                    ? ManualPages.root.appendingPathComponent(page) : folder.appendingPathComponent(parts[0])
                XCTAssertTrue(
                    FileManager.default.fileExists(atPath: file.standardizedFileURL.path),
                    "\(page): \(target) names no file")
                if parts.count == 2, file.pathExtension == "md" {
                    let text = try String(contentsOf: file, encoding: .utf8)
                    XCTAssertTrue(Self.anchors(of: text).contains(parts[1]), "\(page): \(target) names no heading")
                }
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 50)
    }

    /// The reference parts of docs/api.md and docs/renderer.md are what the script prints
    /// from the XML today.
    func testTheReferenceIsWhatTheScriptWritesFromTheXML() throws {
        for (page, xml) in [
            ("docs/api.md", "dbus/org.progressd.Progress1.xml"),
            ("docs/renderer.md", "dbus/org.progressd.Renderer1.xml"),
        ] {
            let result = try CommandResult.run(
                "/usr/bin/python3", [ManualPages.root.appendingPathComponent("scripts/api-reference.py").path,
                                     ManualPages.root.appendingPathComponent(xml).path],
                environment: ProcessInfo.processInfo.environment)
            XCTAssertEqual(result.status, 0, result.errors)
            let committed = try XCTUnwrap(ManualPages.regions("reference", in: try ManualPages.text(page)).first)
            XCTAssertEqual("<!-- reference -->" + committed + "<!-- /reference -->\n", result.output,
                           "\(page) is not what `python3 scripts/api-reference.py --write` writes from \(xml)")
            XCTAssertTrue(result.output.contains("##### "), "\(page): the reference names the members")
        }
    }

    /// The targets of the Markdown links and images of a text, outside code.
    static func links(in text: String) -> [String] {
        var found: [String] = []
        for line in proseLines(of: text) {
            var rest = Substring(line.replacingOccurrences(of: #"`[^`]*`"#, with: "", options: .regularExpression))
            while let open = rest.range(of: "](") {
                let after = rest[open.upperBound...]
                guard let close = after.firstIndex(of: ")") else { break }
                found.append(String(after[..<close]))
                rest = after[close...]
            }
        }
        return found
    }

    /// GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces as
    /// hyphens, and a repeated one numbered from 1.
    static func anchors(of text: String) -> Set<String> {
        var seen: [String: Int] = [:]
        var anchors: Set<String> = []
        for line in proseLines(of: text) where line.hasPrefix("#") {
            let title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)
            let slug = String(title.lowercased().unicodeScalars.filter { scalar in
                scalar == " " || scalar == "-" || scalar == "_" || scalar.properties.isAlphabetic
                    || scalar.properties.numericType != nil
            }.map(Character.init)).replacingOccurrences(of: " ", with: "-")
            let count = seen[slug, default: 0]
            seen[slug] = count + 1
            anchors.insert(count == 0 ? slug : "\(slug)-\(count)")
        }
        return anchors
    }

    /// The lines of a text outside its fenced blocks.
    static func proseLines(of text: String) -> [String] {
        var inFence = false
        return text.split(separator: "\n", omittingEmptySubsequences: false).compactMap { line in
            if line.hasPrefix("```") {
                inFence.toggle()
                return nil
            }
            return inFence ? nil : String(line)
        }
    }
}
