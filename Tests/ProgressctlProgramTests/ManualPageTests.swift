import Foundation
import ProgressTestSupport
import XCTest

/// The manual pages in man/: that they render without a warning, that they and `--help`
/// name the same options (the programs' option tables are the source of truth; the pages
/// are checked against them both ways), and that their examples are ones the README and
/// docs/ test.
final class ManualPageTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let pages = ["progressctl.1", "progress-render.1", "progressd.1"]

    func source(_ page: String) throws -> String {
        try String(contentsOf: Self.root.appendingPathComponent("man/\(page).scd"), encoding: .utf8)
    }

    /// What `make man` does: the placeholders filled in, then scdoc.
    func roff(_ page: String) throws -> String {
        let text = try source(page).replacingOccurrences(of: "@VERSION@", with: "0.0.0-test")
            .replacingOccurrences(of: "@DATADIR@", with: "/usr/local/share")
            .replacingOccurrences(of: "@USERUNITDIR@", with: "/usr/local/lib/systemd/user")
        let file = try temporary(text)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try CommandResult.run(
            "/bin/sh", ["-c", "exec scdoc < \"$0\"", file.path], environment: ProcessInfo.processInfo.environment)
        XCTAssertEqual(result.status, 0, "scdoc \(page): \(result.errors)")
        XCTAssertEqual(result.errors, "", page)
        return result.output
    }

    func temporary(_ text: String) throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("man-\(UUID().uuidString)")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    static func help(_ program: String, _ arguments: String...) throws -> String {
        let result = try CommandResult.run(
            BuildProducts.url(of: program).path, arguments + ["--help"],
            environment: ProcessInfo.processInfo.environment)
        XCTAssertEqual(result.status, 0, "\(program) \(arguments) --help")
        return result.output
    }

    func testEveryPageRendersWithoutAWarning() throws {
        for page in Self.pages {
            let roff = try roff(page)
            XCTAssertTrue(roff.contains(".TH \"\(page.dropLast(2))\" \"1\""), page)
            XCTAssertFalse(roff.contains("@"), "\(page): a placeholder is left")
            let file = try temporary(roff)
            defer { try? FileManager.default.removeItem(at: file) }
            // Every warning groff knows (-ww), no output (-z): a bad macro, an unknown
            // escape or a character outside the input encoding is reported on stderr.
            let result = try CommandResult.run(
                "groff", ["-ww", "-z", "-man", file.path], environment: ProcessInfo.processInfo.environment)
            XCTAssertEqual(result.status, 0, page)
            XCTAssertEqual(result.errors, "", page)
            for section in [
                "NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "ENVIRONMENT", "FILES", "EXAMPLES",
                "SEE ALSO",
            ] {
                XCTAssertTrue(roff.contains(".SH \(section)\n"), "\(page) has no \(section)")
            }
            let text = plain(roff)
            for name in ["LANG", "LC_ALL", "NO_COLOR", "DBUS_SESSION_BUS_ADDRESS", "gdbus(1)", "busctl(1)", "--version",
                         "/usr/local/share/dbus-1/interfaces/org.progressd.Progress1.xml"] {
                XCTAssertTrue(text.contains(name), "\(page) does not mention \(name)")
            }
        }
        let daemon = plain(try roff("progressd.1"))
        for name in ["XDG_STATE_HOME", "$XDG_STATE_HOME/progressd/", "/usr/local/lib/systemd/user/progressd.service",
                     "/usr/local/share/dbus-1/services/org.progressd.Progress1.service"] {
            XCTAssertTrue(daemon.contains(name), "progressd.1 does not mention \(name)")
        }
    }

    /// The words of a page without roff's font changes and the zero-width breaks scdoc
    /// puts after each full stop.
    func plain(_ roff: String) -> String {
        ["\\&", "\\fB", "\\fI", "\\fR"].reduce(roff) { $0.replacingOccurrences(of: $1, with: "") }
    }

    func testTheDaemonsAndTheRenderersPagesHaveTheirOptions() throws {
        for (program, count) in [("progressd", 18), ("progress-render", 28)] {
            let helpOptions = Self.options(inHelp: try Self.help(program))
            XCTAssertEqual(helpOptions.count, count, "\(program) --help: \(helpOptions.sorted())")
            assertSameOptions(
                page: options(inPage: section("OPTIONS", of: try source("\(program).1"))), help: helpOptions, program)
        }
    }

    /// Each option of a page takes the value its program's option table says: the same
    /// placeholder after it as in --help ("*--size* _WxH_" for "--size WxH"), or none.
    func testEveryOptionTakesTheValueItsHelpSays() throws {
        var pairs = [
            ("progressd", section("OPTIONS", of: try source("progressd.1")), try Self.help("progressd")),
            ("progress-render", section("OPTIONS", of: try source("progress-render.1")),
             try Self.help("progress-render")),
        ]
        for text in section("COMMANDS", of: try source("progressctl.1")).components(separatedBy: "\n## ").dropFirst() {
            let name = String(text.prefix { $0 != "\n" })
            pairs.append(("progressctl \(name)", text, try Self.help("progressctl", name)))
        }
        for (program, page, help) in pairs {
            let helpValues = Dictionary(
                uniqueKeysWithValues: help.split(separator: "\n").filter { $0.hasPrefix("  -") }.map { line in
                    let left = line.dropFirst(2).components(separatedBy: "  ")[0].split(separator: " ")
                    return (String(left[0]), left.count > 1 ? String(left[1]) : "")
                })
            let pageValues = Dictionary(
                uniqueKeysWithValues: page.split(separator: "\n").filter { $0.hasPrefix("*-") }.map { line in
                    let name = String(line.dropFirst().prefix { $0 != "*" })
                    let rest = line.dropFirst(name.count + 2).trimmingCharacters(in: .whitespaces)
                    return (name, rest.replacingOccurrences(of: "_", with: ""))
                })
            XCTAssertEqual(pageValues, helpValues, program)
        }
    }

    /// Each command's subsection has the options of `progressctl COMMAND --help`, and the
    /// page has every command of `progressctl --help`, in the same order.
    func testProgressctlsPageHasEveryCommandAndItsOptions() throws {
        let page = try source("progressctl.1")
        let topHelp = try Self.help("progressctl")
        let commandBlock = topHelp.components(separatedBy: "Commands:\n")[1].components(separatedBy: "\n\n")[0]
        let commands = commandBlock.split(separator: "\n").map { String($0.split(separator: " ")[0]) }
        XCTAssertEqual(commands.count, 15)
        let subsections = section("COMMANDS", of: page).components(separatedBy: "\n## ").dropFirst()
        let pageCommands = subsections.map { String($0.prefix { $0 != "\n" }) }
        XCTAssertEqual(pageCommands, commands)
        for (name, text) in zip(pageCommands, subsections) {
            assertSameOptions(
                page: options(inPage: text), help: Self.options(inHelp: try Self.help("progressctl", name)),
                "progressctl \(name)")
        }
        // The tool's own options are named in its top-level help's prose.
        let topOptions = Set(
            topHelp.split(whereSeparator: { " \"\n".contains($0) }).filter { $0.hasPrefix("--") }.map(String.init))
        XCTAssertEqual(topOptions, ["--help", "--version"])
        assertSameOptions(page: options(inPage: section("OPTIONS", of: page)), help: topOptions, "progressctl")
    }

    /// The examples are copied from the blocks of the README and docs/ that ReadmeScriptTests
    /// and ReadmeWalkthroughTests run, so each one is known to work as written.
    func testEveryExampleIsOneTheManualTests() throws {
        let tested = try ["walkthrough", "shell-scripts"].flatMap { marker in
            try ManualPages.regions(marker).flatMap(\.regions)
        }
        let testedLines = Set(
            tested.joined(separator: "\n").split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        for page in Self.pages {
            let blocks = section("EXAMPLES", of: try source(page)).components(separatedBy: "```").enumerated()
                .filter { $0.offset % 2 == 1 }.map(\.element)
            XCTAssertFalse(blocks.isEmpty, page)
            for line in blocks.joined().split(separator: "\n") {
                // scdoc wants a literal backslash doubled.
                let command = line.replacingOccurrences(of: "\\\\", with: "\\").trimmingCharacters(in: .whitespaces)
                XCTAssertTrue(
                    testedLines.contains(command),
                    "\(page): '\(command)' is not in a tested block of the README or docs/")
            }
        }
    }

    /// The options table of a page: the lines that begin with a bold option (`*--name*`).
    func options(inPage text: String) -> Set<String> {
        Set(text.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("*-") else { return nil }
            return String(line.dropFirst().prefix { $0 != "*" })
        })
    }

    /// The options of a help text: the lines of its option list, which begin (indented) with one.
    static func options(inHelp text: String) -> Set<String> {
        Set(text.split(separator: "\n").compactMap { line -> String? in
            let trimmed = line.drop { $0 == " " }
            guard trimmed.count < line.count, trimmed.hasPrefix("-") else { return nil }
            return String(trimmed.prefix { $0 != " " })
        })
    }

    /// The text of a `# SECTION` of a scdoc source, up to the next one.
    func section(_ name: String, of source: String) -> String {
        let parts = source.components(separatedBy: "\n# \(name)\n")
        XCTAssertEqual(parts.count, 2, "no single section \(name)")
        return parts.count == 2 ? parts[1].components(separatedBy: "\n# ")[0] : ""
    }

    func assertSameOptions(page: Set<String>, help: Set<String>, _ program: String, line: UInt = #line) {
        XCTAssertEqual(help.subtracting(page).sorted(), [], "\(program): in --help, not in the manual page", line: line)
        XCTAssertEqual(page.subtracting(help).sorted(), [], "\(program): in the manual page, not in --help", line: line)
    }
}
