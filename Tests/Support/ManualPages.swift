import Foundation

/// The README and the manual in docs/, read the way the tests that run their examples need
/// them: every page, and the regions between a page's markers (`<!-- shell-scripts -->` …
/// `<!-- /shell-scripts -->`), so that an example moved from one page to another is still
/// run, and no page's example can drift from what the programs print.
public enum ManualPages {
    /// The repository's top folder.
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// README.md first, then docs/*.md by name: the order a reader meets them.
    public static var paths: [String] {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path))
            ?? []
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }

    public static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// Each page that has regions with this marker, in page order, with its regions in order.
    public static func regions(_ marker: String) throws -> [(page: String, regions: [String])] {
        try paths.compactMap { path in
            let found = regions(marker, in: try text(path))
            return found.isEmpty ? nil : (path, found)
        }
    }

    /// The regions of one text between `<!-- marker -->` and `<!-- /marker -->`.
    public static func regions(_ marker: String, in text: String) -> [String] {
        text.components(separatedBy: "<!-- \(marker) -->").dropFirst()
            .map { $0.components(separatedBy: "<!-- /\(marker) -->")[0] }
    }

    /// The fenced blocks of a language in a text (```sh …```), each with the ```text block
    /// that follows it before the next fence of that language ("" when there is none): a
    /// command and what it prints.
    public static func blocks(_ language: String, in text: String) -> [(code: String, output: String)] {
        text.components(separatedBy: "```\(language)\n").dropFirst().map { block in
            let code = block.components(separatedBy: "```")[0]
            let output = block.components(separatedBy: "```text\n").dropFirst().first?
                .components(separatedBy: "```")[0] ?? ""
            return (code, output)
        }
    }
}
