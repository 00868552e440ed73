import ProgressCommandLine
@testable import ProgressControl
import XCTest

final class ArgumentsTests: XCTestCase {
    let options = [OptionSpec("title", value: "TEXT", "t"), OptionSpec("json", "j"), OptionSpec("o", value: "FILE", "o")]

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
        XCTAssertThrowsError(try parse(["--colour", "red"])) { XCTAssertEqual($0 as? UsageError, UsageError("unknown option '--colour' for 'test'")) }
        XCTAssertThrowsError(try parse(["--title"])) { XCTAssertEqual($0 as? UsageError, UsageError("option '--title' needs a value (TEXT)")) }
        XCTAssertThrowsError(try parse(["-o", "a", "-o", "b"])) { XCTAssertEqual($0 as? UsageError, UsageError("option '-o' is given twice")) }
        XCTAssertThrowsError(try parse(["--json=yes"])) { XCTAssertEqual($0 as? UsageError, UsageError("option '--json' takes no value")) }
        XCTAssertThrowsError(try parse(["a", "b"]).positionals("NAME")) { XCTAssertEqual($0 as? UsageError, UsageError("unexpected argument 'b'")) }
        XCTAssertThrowsError(try parse([]).positionals("NAME", "MESSAGE")) { XCTAssertEqual($0 as? UsageError, UsageError("missing NAME")) }
    }

    func testFractionsAreWrittenAsScriptsWriteThem() throws {
        XCTAssertEqual(try TaskCommands.fraction("0.42"), 0.42)
        XCTAssertEqual(try TaskCommands.fraction("42%"), 0.42)
        XCTAssertThrowsError(try TaskCommands.fraction("0,42"))
        XCTAssertThrowsError(try TaskCommands.fraction("nan"))
    }
}
