import ProgressCommandLine
import ProgressBus
import ProgressClient

/// The commands a job uses to report: one line each in a shell script.
enum TaskCommands {
    static let all = [start, set, pulse, finish, fail, remove, cancel, pause, resume]

    static let start = Command(
        "start", help: #"""
        Usage: progressctl start NAME [--title TEXT] [--total N --unit UNIT] [--indeterminate] [--app-id ID]
               progressctl       [--lifetime lease|caller|persistent] [--cancellable] [--pausable] [--parent NAME]

        Starts a task, or picks up a running one of that name.

        By default a task is a lease: it lives while it keeps being updated, shows as stalled
        after 30 seconds without an update, and fails as expired after 10 minutes.

        Options:
          --title TEXT      what the task does, for people
          --total N         units in all
          --unit UNIT       bytes, files, items, or any word
          --indeterminate   the amount of work is unknown
          --app-id ID       the desktop file id of the application
          --lifetime KIND   lease (default), caller or persistent
          --cancellable     a user may ask the job to cancel
          --pausable        a user may ask the job to pause
          --parent NAME     make the task part of another

        Examples:
          progressctl start backup --title 'Backing up Documents' --total 120 --unit files
          progressctl start scan --indeterminate
        """#,
        run: { arguments, context in
            let name = try arguments.positionals("NAME")[0]
            var options: [(String, BusValue)] = []
            if let title = arguments.values["title"] { options.append(("title", .string(title))) }
            if let total = try arguments.count("total") { options.append(("total", .uint64(total))) }
            if let unit = arguments.values["unit"] { options.append(("unit", .string(unit))) }
            if arguments.has("indeterminate") { options.append(("indeterminate", .bool(true))) }
            if let appId = arguments.values["app-id"] { options.append(("app-id", .string(appId))) }
            if let lifetime = arguments.values["lifetime"] { options.append(("lifetime", .string(lifetime))) }
            if arguments.has("cancellable") { options.append(("cancellable", .bool(true))) }
            if arguments.has("pausable") { options.append(("pausable", .bool(true))) }
            if let parent = arguments.values["parent"] { options.append(("parent", .string(parent))) }
            try context.manager("Start", [.string(name), .vardict(options)])
            return 0
        })

    static let set = Command(
        "set", help: #"""
        Usage: progressctl set NAME FRACTION [--message TEXT]
               progressctl set NAME --completed N [--total N] [--message TEXT]

        Sets a task's progress: a fraction, a percent, or units done.

        FRACTION is written 0.42 or 42% (with a dot, whatever the locale, as scripts write it).

        Options:
          --completed N    units done
          --total N        units in all
          --message TEXT   a line about the current step

        Examples:
          progressctl set backup 0.42
          progressctl set backup 42%
          progressctl set backup --completed 50 --total 120 --message 'Pictures'
        """#,
        run: { arguments, context in
            let name: String
            var changes: [(String, BusValue)] = []
            if arguments.positionals.count == 2 {
                name = arguments.positionals[0]
                changes.append(("fraction", .double(try fraction(arguments.positionals[1]))))
                if arguments.values["completed"] != nil { throw UsageError("give a FRACTION or --completed, not both") }
            } else {
                name = try arguments.positionals("NAME")[0]
                if let completed = try arguments.count("completed") {
                    changes.append(("completed", .uint64(completed)))
                }
            }
            if let total = try arguments.count("total") { changes.append(("total", .uint64(total))) }
            if let message = arguments.values["message"] { changes.append(("message", .string(message))) }
            if changes.isEmpty { throw UsageError("missing FRACTION, --completed, --total or --message") }
            try context.manager("Update", [.string(name), .vardict(changes)])
            return 0
        })

    static let pulse = simple("pulse", "Shows activity on a task whose amount of work is unknown.", "Pulse",
                              example: "progressctl pulse scan")
    static let finish = simple("finish", "Marks a task finished.", "Finish", example: "progressctl finish backup")
    static let remove = simple("remove", "Removes a task (and its children) at once.", "Remove",
                               example: "progressctl remove backup")
    static let cancel = simple("cancel", "Asks a task's job to cancel (the task must be cancellable).", "RequestCancel",
                               example: "progressctl cancel backup")
    static let pause = simple("pause", "Asks a task's job to pause (the task must be pausable).", "RequestPause",
                              example: "progressctl pause backup")
    static let resume = simple("resume", "Asks a paused task's job to go on.", "RequestResume",
                               example: "progressctl resume backup")

    static let fail = Command(
        "fail", help: #"""
        Usage: progressctl fail NAME MESSAGE

        Marks a task failed, saying why.

        Examples:
          progressctl fail backup 'The disk is full'
        """#,
        run: { arguments, context in
            let values = try arguments.positionals("NAME", "MESSAGE")
            try context.manager("Fail", [.string(values[0]), .string(values[1])])
            return 0
        })

    private static func simple(_ name: String, _ summary: String, _ method: String, example: String) -> Command {
        Command(
            name: name, usage: ["\(name) NAME"], summary: summary, details: "", options: [], examples: [example],
            run: { arguments, context in
                try context.manager(method, [.string(try arguments.positionals("NAME")[0])])
                return 0
            })
    }

    /// "0.42" or "42%".
    static func fraction(_ text: String) throws(UsageError) -> Double {
        let isPercent = text.hasSuffix("%")
        guard let number = Double(isPercent ? String(text.dropLast()) : text), number.isFinite else {
            throw UsageError("FRACTION must be a number such as 0.42 or 42%, not '\(text)'")
        }
        return isPercent ? number / 100 : number
    }
}
