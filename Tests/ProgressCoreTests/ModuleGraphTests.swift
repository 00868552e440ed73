import Foundation
import XCTest

/// The module graph is the architecture: Package.swift's dependencies of each source target
/// are the modules its files import, no more and no fewer, and docs/architecture.md draws
/// that graph as it is.
final class ModuleGraphTests: XCTestCase {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    struct Target {
        let name: String
        let kind: String
        let dependencies: Set<String>
        let path: String
    }

    /// Each `.target`, `.executableTarget` and `.systemLibrary` of Package.swift, with the
    /// names its `dependencies:` list quotes and its folder.
    static func packageTargets() throws -> [Target] {
        let manifest = try String(contentsOf: repository.appendingPathComponent("Package.swift"), encoding: .utf8)
        let start = try NSRegularExpression(pattern: #"\.(target|executableTarget|systemLibrary|testTarget)\("#)
        let text = manifest as NSString
        let starts = start.matches(in: manifest, range: NSRange(location: 0, length: text.length))
        var targets: [Target] = []
        for (index, match) in starts.enumerated() {
            let end = index + 1 < starts.count ? starts[index + 1].range.location : text.length
            let chunk = text.substring(
                with: NSRange(location: match.range.location, length: end - match.range.location))
            let kind = text.substring(with: match.range(at: 1))
            guard kind != "testTarget", let name = firstQuoted(after: "name:", in: chunk) else { continue }
            var dependencies = Set<String>()
            if let list = chunk.range(of: "dependencies:"),
               let open = chunk[list.upperBound...].firstIndex(of: "["),
               let close = chunk[open...].firstIndex(of: "]") {
                dependencies = Set(quoted(in: String(chunk[open...close])))
            }
            let path = firstQuoted(after: "path:", in: chunk) ?? "Sources/\(name)"
            targets.append(Target(name: name, kind: kind, dependencies: dependencies, path: path))
        }
        return targets
    }

    static func quoted(in text: String) -> [String] {
        text.split(separator: "\"", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    static func firstQuoted(after key: String, in text: String) -> String? {
        guard let range = text.range(of: key) else { return nil }
        return quoted(in: String(text[range.upperBound...])).first
    }

    /// The package's modules that the Swift files under `path` import.
    static func imports(under path: String, modules: Set<String>) throws -> Set<String> {
        let folder = repository.appendingPathComponent(path)
        guard let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [] }
        var found = Set<String>()
        for case let file as URL in files where file.pathExtension == "swift" {
            for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
                let words = line.split(separator: " ")
                guard let keyword = words.firstIndex(of: "import"), keyword + 1 < words.count,
                      words[..<keyword].allSatisfy({
                          $0.hasPrefix("@") || ["public", "package", "internal"].contains($0)
                      })
                else { continue }
                let module = String(words[keyword + 1])
                if modules.contains(module) { found.insert(module) }
            }
        }
        return found
    }

    static func hasSwiftFiles(under path: String) throws -> Bool {
        let folder = repository.appendingPathComponent(path)
        guard let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else {
            return false
        }
        return files.contains { ($0 as? URL)?.pathExtension == "swift" }
    }

    func testEachTargetDependsOnExactlyTheModulesItImports() throws {
        let targets = try Self.packageTargets()
        XCTAssertGreaterThan(targets.count, 20, "Package.swift's targets were not read")
        let names = Set(targets.map(\.name))
        for target in targets where target.kind != "systemLibrary" {
            let imported = try Self.imports(under: target.path, modules: names)
            let swiftDependencies = target.dependencies.filter { name in
                targets.first { $0.name == name }.map { $0.kind != "executableTarget" } ?? true
            }
            // A C target's files are C: what it needs is what its headers include.
            if try !Self.hasSwiftFiles(under: target.path) { continue }
            XCTAssertEqual(imported.subtracting(swiftDependencies).sorted(), [],
                           "\(target.name) imports modules Package.swift does not list as its dependencies")
            XCTAssertEqual(swiftDependencies.subtracting(imported).sorted(), [],
                           "\(target.name) depends on modules none of its files imports")
        }
    }

    /// docs/architecture.md's "The module graph" block: one line a target, `Name -> A, B`,
    /// a long list going on in indented lines.
    func testTheArchitecturePageDrawsTheGraphAsItIs() throws {
        let page = try String(
            contentsOf: Self.repository.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        guard let heading = page.range(of: "## The module graph"),
              let open = page[heading.upperBound...].range(of: "```\n"),
              let close = page[open.upperBound...].range(of: "```") else {
            return XCTFail("docs/architecture.md has no \"The module graph\" section with a drawing")
        }
        var drawn: [String: Set<String>] = [:]
        var last: String?
        for line in page[open.upperBound..<close.lowerBound].split(separator: "\n") {
            let sides = line.components(separatedBy: "->")
            let listed = { (text: String) in
                text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            }
            if line.hasPrefix(" "), sides.count == 1, let last {
                drawn[last]?.formUnion(listed(sides[0]))
                continue
            }
            let name = sides[0].trimmingCharacters(in: .whitespaces)
            XCTAssertNil(drawn[name], "\(name) is drawn twice")
            drawn[name] = Set(sides.count > 1 ? listed(sides[1]) : [])
            last = name
        }
        let package = Dictionary(uniqueKeysWithValues: try Self.packageTargets().map { ($0.name, $0.dependencies) })
        XCTAssertEqual(Set(drawn.keys).symmetricDifference(package.keys).sorted(), [],
                       "targets in only one of Package.swift and the drawing")
        for (name, dependencies) in package where drawn[name] != nil {
            XCTAssertEqual(drawn[name]?.sorted(), dependencies.sorted(), "\(name)'s dependencies as drawn")
        }
    }
}
