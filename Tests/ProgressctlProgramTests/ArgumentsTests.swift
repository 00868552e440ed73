import ProgressCommandLine
@testable import ProgressctlProgram
import XCTest

final class ArgumentsTests: XCTestCase {
    let options = [
        OptionSpec("title", value: "TEXT", "t"), OptionSpec("json", "j"), OptionSpec("o", value: "FILE", "o"),
    ]

    func parse(_ arguments: [String]) throws -> Arguments {
        try Arguments(parsing: arguments, options: options, command: "test")
    }

    func testOptionsFlagsPositionalsAndTheSeparator() throws {
        let parsed = try parse(["a", "--title", "T 1", "--json", "b", "-o", "out.png", "--", "make", "--title", "-o"])
        XCTAssertEqual(parsed.positionals, ["a", "b"])
        XCTAssertEqual(parsed.values, ["title": "T 1", "o": "out.png"])
        XCTAssertTrue(parsed.has("json"))
        XCTAssertEqual(parsed.afterSeparator, ["make", "--title", "-o"])
        XCTAssertEqual(try parse(["--title=x=y"]).values["title"], "x=y")
        XCTAssertEqual(try parse(["-5%"]).positionals, ["-5%"], "a dash alone does not make an option")
    }

    func testMistakesNameTheArgument() {
        XCTAssertThrowsError(try parse(["--colour", "red"])) {
            XCTAssertEqual($0 as? UsageError, UsageError("unknown option '--colour' for 'test'"))
        }
        XCTAssertThrowsError(try parse(["--title"])) {
            XCTAssertEqual($0 as? UsageError, UsageError("option '--title' needs a value (TEXT)"))
        }
        XCTAssertThrowsError(try parse(["-o", "a", "-o", "b"])) {
            XCTAssertEqual($0 as? UsageError, UsageError("option '-o' is given twice"))
        }
        XCTAssertThrowsError(try parse(["--json=yes"])) {
            XCTAssertEqual($0 as? UsageError, UsageError("option '--json' takes no value"))
        }
        XCTAssertThrowsError(try parse(["a", "b"]).positionals("NAME")) {
            XCTAssertEqual($0 as? UsageError, UsageError("unexpected argument 'b'"))
        }
        XCTAssertThrowsError(try parse([]).positionals("NAME", "MESSAGE")) {
            XCTAssertEqual($0 as? UsageError, UsageError("missing NAME"))
        }
    }

    /// progressd's flags: ranges, choices and a repeatable option, through the same parser.
    enum Service: String, CaseIterable { case a, b }

    func testCheckedValuesNameTheOptionAndTheValue() throws {
        let options = [OptionSpec("max", value: "N", "m"), OptionSpec("after", value: "SECONDS", "a"),
                       OptionSpec("mode", choices: ["none", "some", "all"], "m"),
                       OptionSpec("skip", value: "SERVICE", choices: ["a", "b"], "s", repeatable: true)]
        func parse(_ arguments: String...) throws -> Arguments {
            try Arguments(parsing: arguments, options: options, command: "progressd")
        }
        let parsed = try parse("--max", "7", "--after", "0.5", "--mode", "some", "--skip", "a", "--skip=b")
        XCTAssertEqual(try parsed.wholeNumber("max", in: 1...10), 7)
        XCTAssertEqual(try parsed.number("after", in: 0...60, kind: "seconds"), 0.5)
        XCTAssertEqual(try parsed.choice("mode"), "some")
        XCTAssertEqual(try parsed.all("skip", as: Service.self), [.a, .b])
        XCTAssertNil(try parse().wholeNumber("max", in: 1...10))
        XCTAssertEqual(try parse().all("skip"), [])
        XCTAssertThrowsError(try parse("--max", "0").wholeNumber("max", in: 1...10)) {
            XCTAssertEqual($0 as? UsageError, UsageError("option '--max' needs a whole number from 1 to 10, not '0'"))
        }
        XCTAssertThrowsError(try parse("--after", "nan").number("after", in: 0...86_400, kind: "seconds")) {
            XCTAssertEqual($0 as? UsageError, UsageError("option '--after' needs seconds from 0 to 86400, not 'nan'"))
        }
        XCTAssertThrowsError(try parse("--mode", "most").choice("mode")) {
            XCTAssertEqual($0 as? UsageError, UsageError("option '--mode' needs none, some or all, not 'most'"))
        }
        XCTAssertThrowsError(try parse("--skip", "a", "--skip", "c").all("skip", as: Service.self)) {
            XCTAssertEqual($0 as? UsageError, UsageError("option '--skip' needs a or b, not 'c'"))
        }
        XCTAssertThrowsError(try parse("--mode", "none", "--mode", "all")) {
            XCTAssertEqual($0 as? UsageError, UsageError("option '--mode' is given twice"))
        }
    }

    /// A syntax is written as its help reads; the table read from it parses, and prints
    /// the same help back.
    func testTheHelpTextIsTheOptionTable() throws {
        let help = """
            Usage: tool [OPTIONS]
                   tool --list

            Does things.

            Details, in two
            lines.

            Options:
              --mode mine|all     whose, and
                                  why
              --skip SERVICE...   not those
              -o FILE             out
              --quiet             say less

            Examples:
              tool --mode all

            """
        let syntax = CommandSyntax(program: "tool", help: help)
        XCTAssertEqual(syntax.help, help)
        XCTAssertEqual(syntax.usage, ["tool [OPTIONS]", "tool --list"])
        XCTAssertEqual(syntax.summary, "Does things.")
        XCTAssertEqual(syntax.details, "Details, in two\nlines.")
        XCTAssertEqual(syntax.examples, ["tool --mode all"])
        XCTAssertEqual(syntax.options.map(\.name), ["mode", "skip", "o", "quiet"])
        XCTAssertEqual(syntax.options.map(\.value), ["mine|all", "SERVICE...", "FILE", nil])
        XCTAssertEqual(syntax.options[0].help, "whose, and\nwhy")
        XCTAssertEqual(syntax.options[0].choices, ["mine", "all"])
        XCTAssertEqual(syntax.options.map(\.repeatable), [false, true, false, false])
        let parsed = try syntax.parse(["--mode", "all", "--skip", "a", "--skip", "b", "-o", "x", "--quiet"])
        XCTAssertEqual(try parsed.choice("mode"), "all")
        XCTAssertEqual(parsed.all("skip"), ["a", "b"])
        XCTAssertEqual(parsed.values["o"], "x")
        XCTAssertTrue(parsed.has("quiet"))
        XCTAssertThrowsError(try syntax.parse(["--mode", "some"]).choice("mode")) {
            XCTAssertEqual($0 as? UsageError, UsageError("option '--mode' needs mine or all, not 'some'"))
        }
        XCTAssertEqual(syntax.usageLines, "usage: tool [OPTIONS]\nusage: tool --list\n")
    }

    func testFractionsAreWrittenAsScriptsWriteThem() throws {
        XCTAssertEqual(try TaskCommands.fraction("0.42"), 0.42)
        XCTAssertEqual(try TaskCommands.fraction("42%"), 0.42)
        XCTAssertThrowsError(try TaskCommands.fraction("0,42"))
        XCTAssertThrowsError(try TaskCommands.fraction("nan"))
    }
}
