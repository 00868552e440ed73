import ProgressCommandLine
import ProgressCore

/// One progressctl command: what `--help` says about it, and what it does.
public struct Command: Sendable {
    public let name: String
    /// Usage lines, after "progressctl ".
    public let usage: [String]
    public let summary: String
    public let details: String
    public let options: [OptionSpec]
    public let examples: [String]
    let run: @Sendable (Arguments, Context) throws -> Int32

    public var help: String {
        var text = "Usage: " + usage.map { "progressctl \($0)" }.joined(separator: "\n       ") + "\n\n"
        text += summary + "\n"
        if !details.isEmpty { text += "\n" + details + "\n" }
        if !options.isEmpty {
            text += "\nOptions:\n"
            let rows = options.map { ($0.dashes + $0.name + ($0.value.map { " " + $0 } ?? ""), $0.help) }
            let width = rows.map(\.0.count).max() ?? 0
            for (left, right) in rows {
                text += "  " + left + String(repeating: " ", count: width - left.count + 3) + right + "\n"
            }
        }
        text += "\nExamples:\n" + examples.map { "  " + $0 }.joined(separator: "\n") + "\n"
        return text
    }
}

/// The tool: finds the command, parses its arguments, maps failures to exit codes.
public enum ProgressControl {
    /// sysexits.h: a usage error, and a service that can not be reached.
    public static let usageStatus: Int32 = 64
    public static let unavailableStatus: Int32 = 69

    public static let commands: [Command] = TaskCommands.all + ReadCommands.all + [
        WatchCommand.command, RunCommand.command, PipeCommand.command, RenderCommand.command,
    ]

    public static var help: String {
        let width = commands.map(\.name.count).max() ?? 0
        let rows = commands.map { "  " + $0.name + String(repeating: " ", count: width - $0.name.count + 3) + $0.summary }
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
            let parsed = try Arguments(parsing: rest, options: command.options, command: command.name)
            return try command.run(parsed, context)
        } catch let error as UsageError {
            context.err("progressctl \(command.name): \(error.message)\n"
                + command.usage.map { "usage: progressctl \($0)" }.joined(separator: "\n") + "\n")
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
