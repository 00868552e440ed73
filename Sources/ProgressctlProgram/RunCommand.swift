import FoundationEssentials
import ProgressCommandLine
import ProgressBus
import ProgressClient
import ProgressModel

/// Runs a command as a task: its output passes through, its progress is read from what it
/// prints (or from the files it reads), and its exit status finishes or fails the task and
/// becomes progressctl's own.
enum RunCommand {
    static let command = Command(
        "run", help: #"""
        Usage: progressctl run NAME [--title TEXT] [--app-id ID] [--parse NAME | --progress-regex REGEX] \#
        [--terminal-progress WHEN] -- COMMAND [ARGUMENTS...]

        Runs a command as a task, finished or failed by its exit status.

        When progressctl's stdout is a terminal the command runs on a terminal of its own,
        so it shows the progress it shows there; keys, the window size and Ctrl-C reach it,
        Ctrl-Z suspends both, and the terminal's mode is restored however progressctl ends.
        Otherwise its stdout and stderr are pipes. Its output passes through unchanged,
        except that a terminal which does not declare OSC 9;4 never gets that sequence.

        --parse auto (the default) reads OSC 9;4 (1 value, 2 error, 3 busy, 4 paused, 0 none),
        rsync --info=progress2, curl's meters, wget, git --progress, apt's Status-Fd lines or bar,
        ffmpeg -progress or its stats (against -t or the input's duration), dd status=progress
        and pv -n (when the command is dd or pv), else the last "NN%" or first "N/M" of a
        line; while the output shows none, the largest file the command or its children read
        (its position in /proc). The fraction never moves back within one phase. --parse NAME
        uses one: \#(ParserRegistry.names.dropFirst().joined(separator: ", ")).
        --progress-regex reads each line (ended by \n or \r): one group reads a percent,
        two read DONE and TOTAL.

        --terminal-progress auto shows the task in the terminal's tab (OSC 9;4) when the
        terminal declares it: WT_SESSION, ConEmuANSI=ON, TERM_PROGRAM WezTerm or ghostty,
        iTerm.app with P in TERM_FEATURES, PTYXIS_VERSION 48, KONSOLE_VERSION 260400 or
        VTE_VERSION 8000 and later; inside tmux only with allow-passthrough. The task is
        bound to progressctl's connection, so it fails at once if progressctl dies, and a
        cancel request stops the command with SIGTERM. progressctl exits with the
        command's status.

        Options:
          --title TEXT               what the task does (default: the command)
          --app-id ID                the desktop file id of the application (its dock icon shows the progress)
          --parse NAME               how to read progress: auto (default) or one parser's name
          --progress-regex REGEX     reads a percent, or DONE and TOTAL, from the output
          --terminal-progress WHEN   auto, always or never: show progress in the terminal's tab

        Examples:
          progressctl run backup -- rsync -a --info=progress2 --no-inc-recursive ~/Documents /mnt/backup
          progressctl run iso -- curl -# -LO https://cdimage.debian.org/debian-cd/current/amd64/iso-cd/SHA256SUMS
          progressctl run archive -- tar czf documents.tar.gz ~/Documents
          progressctl run build --progress-regex '\[ *([0-9]+)%\]' -- make
        """#,
        run: { arguments, context in
            _ = try arguments.positionals("NAME")
            guard let command = arguments.afterSeparator, !command.isEmpty else {
                throw UsageError("missing COMMAND after '--'")
            }
            let choice: ParserChoice
            do throws(ParserChoice.ChoiceError) {
                choice = try ParserChoice(parse: arguments.values["parse"], regex: arguments.values["progress-regex"])
            } catch {
                throw UsageError(error.message)
            }
            let terminalProgress = try TerminalProgressMode.option(arguments.values["terminal-progress"])
            let name = arguments.positionals[0]
            var start: [(String, BusValue)] = [
                ("title", .string(arguments.values["title"] ?? defaultTitle(command))), ("indeterminate", .bool(true)),
                ("lifetime", .string("caller")), ("cancellable", .bool(true)),
            ]
            if let appId = arguments.values["app-id"] { start.append(("app-id", .string(appId))) }
            return try CommandRunner(name: name, command: command, choice: choice, context: context)
                .run(start: start, terminalProgress: terminalProgress)
        })
}

/// The command line as a title: one line (a script given to `sh -c` has several), and
/// short enough for any place that shows a title.
func defaultTitle(_ command: [String]) -> String {
    let words = command.joined(separator: " ").unicodeScalars
        .split { $0.properties.generalCategory == .control || $0 == " " }
    let line = words.map { String(String.UnicodeScalarView($0)) }.joined(separator: " ")
    return line.count > 200 ? String(line.prefix(199)) + "…" : line
}

extension TerminalProgressMode {
    /// The `--terminal-progress` option's value, `auto` when not given.
    static func option(_ value: String?) throws -> TerminalProgressMode {
        guard let value else { return .auto }
        guard let mode = TerminalProgressMode(rawValue: value) else {
            throw UsageError("--terminal-progress '\(value)' is not one of auto, always, never")
        }
        return mode
    }
}

/// The object path element of a task name, as the daemon escapes it.
enum TaskPath {
    static func element(_ name: String) throws -> String {
        try TaskName(name).pathElement
    }
}
