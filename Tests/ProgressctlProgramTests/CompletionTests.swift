import Foundation
import ProgressBus
import ProgressctlProgram
import ProgressTestSupport
import XCTest

/// The shell completions in completions/: bash driven as bash-completion drives it
/// (COMP_WORDS, COMP_CWORD, then the function), fish through `complete -C`, zsh checked
/// for syntax and for naming the options of `--help`. Task names come from a daemon on a
/// private bus.
final class CompletionTests: DaemonTestCase {
    override var startsBusAtSetUp: Bool { false }

    static let directory = ManualPageTests.root.appendingPathComponent("completions")
    static let programs = ["progressctl", "progress-render", "progressd"]

    /// The built programs first on PATH, as an installed progressctl would be.
    func environment(bus: PrivateBus? = nil) -> [String: String] {
        var environment = bus?.environment ?? ProcessInfo.processInfo.environment
        if bus == nil { environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent/bus" }
        environment["PATH"] = BuildProducts.url(of: "progressctl").deletingLastPathComponent().path + ":"
            + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["LC_ALL"] = "C.UTF-8"
        return environment
    }

    /// What bash proposes for the last of `words` (the word being completed).
    func bash(_ words: String..., environment: [String: String]? = nil, line: UInt = #line) throws -> [String] {
        try bash(words, environment: environment, line: line)
    }

    func bash(_ words: [String], environment: [String: String]? = nil, line: UInt = #line) throws -> [String] {
        let program = words[0]
        let function = "_" + program.replacingOccurrences(of: "-", with: "_")
        let script = """
            source "$0"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); \(function)
            ((${#COMPREPLY[@]})) && printf '%s\\n' "${COMPREPLY[@]}"; true
            """
        // Interactive: a completion that waits is one nobody waits for. A hang (a D-Bus
        // call left to its 25 s default) is cut at 10 s and fails; no timing is compared.
        let result = try CommandResult.run(
            "/usr/bin/timeout",
            ["10", "/bin/bash", "-c", script, Self.directory.appendingPathComponent("\(program).bash").path] + words,
            environment: environment ?? self.environment())
        XCTAssertNotEqual(result.status, 124, "the completion of \(words) hung", line: line)
        XCTAssertEqual(result.status, 0, "\(words)", line: line)
        XCTAssertEqual(result.errors, "", "\(words)", line: line)
        return result.output.split(separator: "\n").map(String.init)
    }

    func testBashCompletesCommandsAndTheirOptions() throws {
        let help = try ManualPageTests.help("progressctl")
        let commands = help.components(separatedBy: "Commands:\n")[1].components(separatedBy: "\n\n")[0]
            .split(separator: "\n").map { String($0.split(separator: " ")[0]) }
        XCTAssertEqual(try bash("progressctl", ""), commands + ["help", "--help", "--version"])
        XCTAssertEqual(try bash("progressctl", "st"), ["start"])
        XCTAssertEqual(try bash("progressctl", "help", "wa"), ["watch"])
        for command in commands {
            let options = ManualPageTests.options(inHelp: try ManualPageTests.help("progressctl", command))
            XCTAssertEqual(Set(try bash("progressctl", command, "-")), options.union(["--help"]), command)
        }
        XCTAssertEqual(try bash("progressctl", "start", "x", "--l"), ["--lifetime"])
        // After `run NAME --` the words are another command's.
        XCTAssertTrue(try bash("progressctl", "run", "x", "--", "ech").contains("echo"))
    }

    func testBashCompletesTheChoicesTheCodeAccepts() throws {
        let styles = try CommandResult.run(
            BuildProducts.url(of: "progress-render").path, ["--list-styles"], environment: environment())
            .output.split(separator: "\n").map(String.init)
        XCTAssertEqual(styles.count, 5)
        XCTAssertEqual(try bash("progressctl", "start", "x", "--lifetime", ""), ["lease", "caller", "persistent"])
        XCTAssertEqual(try bash("progressctl", "start", "x", "--lifetime", "p"), ["persistent"])
        XCTAssertEqual(Set(try bash("progressctl", "render", "x", "--style", "")), Set(styles))
        XCTAssertEqual(Set(try bash("progress-render", "--style", "")), Set(styles))
        XCTAssertEqual(try bash("progressctl", "render", "x", "--format", ""), ["png", "svg", "pdf", "apng"])
        XCTAssertEqual(try bash("progress-render", "--theme", ""), ["light", "dark", "high-contrast"])
        XCTAssertEqual(try bash("progress-render", "--state", "f"), ["finished", "failed"])
        // A value nothing can guess: no proposal, not the options.
        XCTAssertEqual(try bash("progressctl", "start", "x", "--title", ""), [])
        XCTAssertEqual(try bash("progress-render", "--fraction", ""), [])
    }

    /// `--parse` completes to ParserRegistry's names, in its order, in all three shells.
    func testParseCompletesTheRegistrysNames() throws {
        XCTAssertEqual(try bash("progressctl", "run", "x", "--parse", ""), ParserChoice.names)
        let names = ParserChoice.names.joined(separator: " ")
        let fish = try String(contentsOf: Self.directory.appendingPathComponent("progressctl.fish"), encoding: .utf8)
        XCTAssertTrue(fish.contains("-l parse -x -a '\(names)'"), "progressctl.fish lists \(names)")
        let zsh = try String(contentsOf: Self.directory.appendingPathComponent("_progressctl"), encoding: .utf8)
        XCTAssertTrue(zsh.contains(":parser:(\(names))"), "_progressctl lists \(names)")
    }

    /// An option shown with its choices in --help ("--system-jobs mine|all") completes to
    /// exactly those: the choices the parser checks.
    func testBashCompletesTheChoicesTheHelpShows() throws {
        var checked = 0
        for program in ["progressd", "progress-render"] {
            for line in try ManualPageTests.help(program).split(separator: "\n") {
                let words = line.split(separator: " ")
                guard line.hasPrefix("  -"), words.count > 1, words[1].contains("|") else { continue }
                XCTAssertEqual(
                    try bash(program, String(words[0]), ""), words[1].split(separator: "|").map(String.init),
                    String(line))
                checked += 1
            }
        }
        XCTAssertGreaterThanOrEqual(checked, 1)
    }

    /// The option tables say which options take a value (a placeholder after the name in
    /// --help); the completions agree: after one, no option is proposed, after a flag the
    /// options are.
    func testBashKnowsWhichOptionsTakeAValue() throws {
        var cases = [
            (["progress-render"], try ManualPageTests.help("progress-render")),
            (["progressd"], try ManualPageTests.help("progressd")),
        ]
        let top = try ManualPageTests.help("progressctl")
        for command in top.components(separatedBy: "Commands:\n")[1].components(separatedBy: "\n\n")[0]
            .split(separator: "\n") {
            let name = String(command.split(separator: " ")[0])
            cases.append((["progressctl", name, "x"], try ManualPageTests.help("progressctl", name)))
        }
        for (words, help) in cases {
            for line in help.split(separator: "\n") where line.hasPrefix("  -") {
                let left = line.dropFirst(2).components(separatedBy: "  ")[0]
                let option = String(left.prefix { $0 != " " })
                let proposed = try bash(words + [option, "--"])
                if left.contains(" ") {
                    XCTAssertEqual(proposed.filter { $0.hasPrefix("--") }, [], "\(words) \(left) takes a value")
                } else {
                    XCTAssertFalse(proposed.isEmpty, "\(words) \(option) is a flag: the options come after it")
                }
            }
        }
    }

    func testBashCompletesTheRendererAndTheDaemonsOptions() throws {
        for program in ["progress-render", "progressd"] {
            let options = ManualPageTests.options(inHelp: try ManualPageTests.help(program))
            XCTAssertGreaterThan(options.count, 5)
            XCTAssertEqual(Set(try bash(program, "-")), options, program)
        }
    }

    func testBashCompletesLiveTaskNamesAndIsQuietWithoutADaemon() throws {
        try startBus()
        // No daemon on this bus, and then no bus at all: nothing, and nothing on stderr.
        XCTAssertEqual(try bash("progressctl", "set", "", environment: environment(bus: bus)), [])
        XCTAssertEqual(try bash("progressctl", "set", ""), [])
        try startDaemon()
        let environment = environment(bus: bus)
        for name in ["backup", "my copy", "photos"] {
            let started = try CommandResult.run("progressctl", ["start", name], environment: environment)
            XCTAssertEqual(started.status, 0, started.errors)
        }
        _ = try CommandResult.run("progressctl", ["finish", "photos"], environment: environment)
        XCTAssertEqual(try bash("progressctl", "set", "", environment: environment), ["backup", "my\\ copy", "photos"])
        XCTAssertEqual(try bash("progressctl", "finish", "b", environment: environment), ["backup"])
        XCTAssertEqual(try bash("progressctl", "start", "x", "--parent", "m", environment: environment), ["my\\ copy"])
        XCTAssertEqual(try bash("progressctl", "watch", "backup", "p", environment: environment), ["photos"])
        XCTAssertEqual(try bash("progress-render", "--task", "ph", environment: environment), ["photos"])
        // The second argument of set is a FRACTION, not a name.
        XCTAssertEqual(try bash("progressctl", "set", "backup", "", environment: environment), [])
    }

    /// fish's own completion engine, on the installed files' text.
    func fish(_ line: String, program: String, environment: [String: String]) throws -> [String] {
        let file = Self.directory.appendingPathComponent("\(program).fish").path
        let result = try CommandResult.run(
            "fish", ["--no-config", "-c", "source $argv[1]; complete -C $argv[2]", file, line],
            environment: environment)
        XCTAssertEqual(result.status, 0, line)
        XCTAssertEqual(result.errors, "", line)
        return result.output.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) }
    }

    func testFishCompletesOptionsChoicesAndTasks() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/fish") else {
            throw XCTSkip("fish is not installed")
        }
        try startDaemon()
        let environment = environment(bus: bus)
        _ = try CommandResult.run("progressctl", ["start", "backup"], environment: environment)
        for command in ["start", "set", "list", "get", "watch", "run", "pipe", "render"] {
            let options = ManualPageTests.options(inHelp: try ManualPageTests.help("progressctl", command))
                .filter { $0.hasPrefix("--") }
            XCTAssertEqual(
                Set(try fish("progressctl \(command) x --", program: "progressctl", environment: environment)),
                options.union(["--help"]), command)
        }
        for program in ["progress-render", "progressd"] {
            let options = ManualPageTests.options(inHelp: try ManualPageTests.help(program))
                .filter { $0.hasPrefix("--") }
            XCTAssertEqual(Set(try fish("\(program) --", program: program, environment: environment)), options, program)
        }
        XCTAssertEqual(
            try fish("progressctl start x --lifetime ", program: "progressctl", environment: environment).sorted(),
            ["caller", "lease", "persistent"])
        XCTAssertEqual(try fish("progressctl finish ", program: "progressctl", environment: environment), ["backup"])
        XCTAssertEqual(
            try fish("progress-render --task ", program: "progress-render", environment: environment), ["backup"])
    }

    /// zsh can not be driven without a terminal; what can drift is checked: the syntax, and
    /// that each file names exactly the options of the help texts.
    func testZshFilesParseAndNameEveryOption() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/zsh") else {
            throw XCTSkip("zsh is not installed")
        }
        for program in Self.programs {
            let file = Self.directory.appendingPathComponent("_\(program)")
            let syntax = try CommandResult.run("zsh", ["-n", file.path], environment: environment())
            XCTAssertEqual(syntax.status, 0, syntax.errors)
            let text = try String(contentsOf: file, encoding: .utf8)
            XCTAssertTrue(text.hasPrefix("#compdef \(program)\n"), program)
            var help = ManualPageTests.options(inHelp: try ManualPageTests.help(program))
            if program == "progressctl" {
                help = ["--help", "--version"]
                for command in ["start", "set", "list", "get", "watch", "run", "pipe", "render"] {
                    help.formUnion(ManualPageTests.options(inHelp: try ManualPageTests.help("progressctl", command)))
                }
            }
            // An option spec is '-o[...' or '--name=[...' or '(- *)--name[...'.
            let named = Set(text.split(separator: "'").compactMap { piece -> String? in
                let spec = piece.hasPrefix("(- *)") ? piece.dropFirst(5) : piece[...]
                guard spec.hasPrefix("-"), let end = spec.firstIndex(where: { $0 == "[" || $0 == "=" }) else {
                    return nil
                }
                return String(spec[..<end])
            })
            XCTAssertEqual(named.subtracting(help).sorted(), [], "\(program): in the zsh file, not in --help")
            XCTAssertEqual(help.subtracting(named).sorted(), [], "\(program): in --help, not in the zsh file")
        }
    }
}
