import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// What a program or one of progressctl's commands accepts, and how its help reads: the one
/// table its arguments are parsed by and its `--help` is printed from. It is written as the
/// help reads (`init(program:help:)`), so that what a flag is called, takes and means is
/// declared once, where people will read it. The completions in completions/ and the manual
/// pages in man/ are checked against the help this prints.
public struct CommandSyntax: Sendable {
    /// "progressd", "progress-render", or "progressctl start".
    public let program: String
    /// Usage lines, each from the program's name on: "progressctl start NAME [--title TEXT]".
    public let usage: [String]
    public let summary: String
    public let details: String
    public let options: [OptionSpec]
    public let examples: [String]

    public init(program: String, usage: [String], summary: String, details: String = "", options: [OptionSpec],
                examples: [String]) {
        (self.program, self.usage, self.summary) = (program, usage, summary)
        (self.details, self.options, self.examples) = (details, options, examples)
    }

    /// A syntax written as its `help` prints it: "Usage: " and its lines, the summary, any
    /// paragraphs of details, "Options:" with one option a line (help of several lines
    /// goes on below, indented further), and "Examples:". A mistake in the text stops the
    /// program at start-up, where every test sees it.
    public init(program: String, help text: String) {
        let trimmed = String(text.drop { $0.isNewline }.reversed().drop { $0.isNewline }.reversed())
        var paragraphs = trimmed.split(separator: "\n\n", omittingEmptySubsequences: false).map(String.init)
        let usage = paragraphs.removeFirst().split(separator: "\n").map { $0.dropFirst("Usage: ".count) }
        precondition(text.hasPrefix("Usage: "), "\(program): help starts with 'Usage: '")
        let summary = paragraphs.removeFirst()
        var details: [String] = []
        var options: [OptionSpec] = []
        var examples: [String] = []
        for paragraph in paragraphs {
            var lines = paragraph.split(separator: "\n", omittingEmptySubsequences: false)
            switch lines.first {
            case "Options:":
                lines.removeFirst()
                options = OptionSpec.table(lines.map { $0.dropFirst(2) })
            case "Examples:":
                examples = lines.dropFirst().map { String($0.dropFirst(2)) }
            default:
                details.append(paragraph)
            }
        }
        self.init(
            program: program, usage: usage.map(String.init), summary: summary,
            details: details.joined(separator: "\n\n"), options: options, examples: examples)
        precondition(help == trimmed + "\n", "\(program): help does not read as it prints")
    }

    /// The command's name in messages: "start" for "progressctl start".
    public var name: String { String(program.split(separator: " ").last ?? "") }

    public var help: String {
        var text = "Usage: " + usage.joined(separator: "\n       ") + "\n\n"
        text += summary + "\n"
        if !details.isEmpty { text += "\n" + details + "\n" }
        if !options.isEmpty {
            text += "\nOptions:\n"
            let rows = options.map { ($0.dashes + $0.name + ($0.value.map { " " + $0 } ?? ""), $0.help) }
            let width = rows.map(\.0.count).max() ?? 0
            for (left, right) in rows {
                // A help of several lines goes on under its first, in the same column.
                let lines = right.split(separator: "\n", omittingEmptySubsequences: false)
                text += "  " + left + String(repeating: " ", count: width - left.count + 3) + lines[0] + "\n"
                for line in lines.dropFirst() { text += String(repeating: " ", count: width + 5) + line + "\n" }
            }
        }
        text += "\nExamples:\n" + examples.map { "  " + $0 }.joined(separator: "\n") + "\n"
        return text
    }

    /// The usage lines after a mistake, each "usage: PROGRAM ...".
    public var usageLines: String {
        usage.map { "usage: \($0)\n" }.joined()
    }

    public func parse(_ arguments: [String]) throws(UsageError) -> Arguments {
        try Arguments(parsing: arguments, options: options, command: name)
    }

    /// A program's own arguments (progressd's, progress-render's): `--help` anywhere prints
    /// the help and `--version` the version, both to stdout with status 0; a mistake is
    /// printed with the usage on stderr, with status 64 (EX_USAGE).
    public func parseOrExit(_ arguments: [String], version: String) -> Arguments {
        if arguments.contains("--help") || arguments.contains("-h") {
            print(help, terminator: "")
            exit(0)
        }
        do {
            let parsed = try parse(arguments)
            if parsed.has("version") {
                print("\(program) \(version)")
                exit(0)
            }
            return parsed
        } catch {
            fail(error.message + "\n" + usageLines.dropLast(), status: 64)
        }
    }

    /// A mistake found after parsing: "PROGRAM: message" on stderr, status 64 unless said.
    public func fail(_ message: String, status: Int32 = 64) -> Never {
        let line = Array("\(program): \(message)\n".utf8)
        _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        exit(status)
    }
}
