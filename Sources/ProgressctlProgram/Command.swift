import ProgressCommandLine
import ProgressModel

/// One progressctl command: its syntax (what it accepts, what `--help` says), and what it does.
public struct Command: Sendable {
    public let syntax: CommandSyntax
    let run: @Sendable (Arguments, Context) throws -> Int32

    /// `usage` lines come after "progressctl ".
    init(name: String, usage: [String], summary: String, details: String, options: [OptionSpec], examples: [String],
         run: @escaping @Sendable (Arguments, Context) throws -> Int32) {
        syntax = CommandSyntax(program: "progressctl \(name)", usage: usage.map { "progressctl " + $0 },
                               summary: summary, details: details, options: options, examples: examples)
        self.run = run
    }

    /// A command written as its help reads (see `CommandSyntax.init(program:help:)`).
    init(_ name: String, help: String, run: @escaping @Sendable (Arguments, Context) throws -> Int32) {
        syntax = CommandSyntax(program: "progressctl \(name)", help: help)
        self.run = run
    }

    public var name: String { syntax.name }
    public var help: String { syntax.help }
}

/// The tool: finds the command, parses its arguments, maps failures to exit codes.
public enum ProgressctlProgram {
    /// sysexits.h: a usage error, and a service that can not be reached.
    public static let usageStatus: Int32 = 64
    public static let unavailableStatus: Int32 = 69

    public static let commands: [Command] = TaskCommands.all + ReadCommands.all + [
        WatchCommand.command, RunCommand.command, PipeCommand.command, RenderCommand.command,
    ]

    public static var help: String {
        let width = commands.map(\.name.count).max() ?? 0
        let rows = commands.map {
            "  " + $0.name + String(repeating: " ", count: width - $0.name.count + 3) + $0.syntax.summary
        }
        return """
            Usage: progressctl COMMAND [ARGUMENTS...]

            Reports and shows progress tasks of progressd (org.progressd.Progress1).

            Commands:
            \(rows.joined(separator: "\n"))

            "progressctl COMMAND --help" tells more about each. Exit status: 0 on success,
            1 when the daemon refused (its message is shown), 64 for a usage mistake,
            69 when the service can not be reached; run returns its command's status.
            "progressctl --version" prints the version.

            """
    }

    public static func main(_ arguments: [String], context: Context) -> Int32 {
        if arguments == ["--version"] {
            context.out("progressctl \(ProgressVersion.current)\n")
            return 0
        }
        guard let name = arguments.first, name != "--help", name != "-h", name != "help" || arguments.count > 1 else {
            // Asked for, help goes to stdout; given for a missing command, to stderr.
            if arguments.isEmpty { context.err(help) } else { context.out(help) }
            return arguments.isEmpty ? usageStatus : 0
        }
        let commandName = name == "help" ? arguments[1] : name
        guard let command = commands.first(where: { $0.name == commandName }) else {
            context.err("progressctl: unknown command '\(commandName)'; see 'progressctl --help'\n")
            return usageStatus
        }
        let rest = Array(arguments.dropFirst(name == "help" ? 2 : 1))
        if name == "help" || rest.first == "--help" || rest.first == "-h" {
            context.out(command.help)
            return 0
        }
        do {
            return try command.run(try command.syntax.parse(rest), context)
        } catch let error as UsageError {
            context.err("progressctl \(command.name): \(error.message)\n" + command.syntax.usageLines)
            return usageStatus
        } catch let error as ServiceError {
            // The daemon's message, whatever it holds, shown without its control characters.
            context.err("progressctl: \(TerminalText.shown(error.message))\n")
            return error.status
        } catch {
            context.err("progressctl: \(error)\n")
            return 1
        }
    }
}
