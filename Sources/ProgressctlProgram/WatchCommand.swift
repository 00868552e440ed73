import FoundationEssentials
import ProgressCommandLine
import ProgressBus
import ProgressClient

#if canImport(Glibc)
import Glibc
#endif

/// Set from the SIGINT handler; read by the watch loop.
nonisolated(unsafe) private var interrupted: sig_atomic_t = 0

/// Live bars, redrawn on the daemon's signals through a subscription in the caller's
/// locale (never by polling the daemon), or plain lines when stdout is not a terminal.
enum WatchCommand {
    static let command = Command(
        "watch", help: #"""
        Usage: progressctl watch [NAME...] [--interval SECONDS]

        Shows tasks live, until the named ones end (or Ctrl-C).

        On a terminal, each task is a bar with its percent, detail and time left, redrawn in
        place; otherwise one line per change. NO_COLOR turns colours off. With names, watch
        ends when they have all ended: status 0 if they all finished, 1 otherwise.

        Options:
          --interval SECONDS   the fastest redraw per task (default 0.25, 1 without a terminal)

        Examples:
          progressctl watch
          progressctl watch backup
          progressctl watch backup | tee backup.log
        """#,
        run: { arguments, context in try Watch(arguments: arguments, context: context).run() })
}

private final class Watch {
    let names: [String]
    let context: Context
    let terminal: Terminal
    let interval: Double
    var tasks: [String: [String: BusValue]] = [:]
    var ended: [String: String] = [:]
    var lastLine: [String: String] = [:]
    var dirty = true
    var drawing = InPlaceDrawing()
    var columns = 0

    init(arguments: Arguments, context: Context) throws {
        names = arguments.positionals
        self.context = context
        terminal = Terminal(environment: context.environment)
        interval = try arguments.number("interval", in: 0.1...3_600, kind: "seconds")
            ?? (terminal.isInteractive ? 0.25 : 1)
    }

    func run() throws -> Int32 {
        let bus = try context.bus()
        var options: [(String, BusValue)] = [
            ("locale", .string(context.locale)), ("interval-seconds", .double(interval)),
            ("announcements", .bool(false)), ("changes", .bool(true)),
        ]
        if !names.isEmpty { options.append(("tasks", .array(elementType: "s", names.map { .string($0) }))) }
        // Subscribe first, then read the state: nothing can fall between the two.
        let path = try context.manager("Subscribe", [.vardict(options)]).first?.string ?? ""
        bus.subscribe(interface: BusNames.subscriptionInterface, path: path) { [self] signal in
            let name = signal.arguments.first?.string ?? ""
            if signal.member == "Removed" {
                tasks[name] = nil
                if ended[name] == nil { ended[name] = "removed" }
            } else if signal.member == "Changed", let changed = signal.arguments.last?.dictionary {
                tasks[name, default: [:]].merge(changed) { $1 }
            }
            dirty = true
        }
        try context.everyTask { name, properties in
            // A signal may already have brought newer values than the page.
            if names.isEmpty || names.contains(name) { tasks[name] = properties.merging(tasks[name] ?? [:]) { $1 } }
        }
        if let missing = names.first(where: { tasks[$0] == nil }) {
            throw ServiceError(message: "no task is named '\(missing)'", status: 1)
        }
        interrupted = 0
        signal(SIGINT) { _ in interrupted = 1 }
        if terminal.isInteractive { context.out("\u{1B}[?25l") }  // hide the cursor while drawing
        defer { if terminal.isInteractive { context.out("\u{1B}[?25h") } }
        while interrupted == 0 {
            BusConnection.pump(seconds: 0.5, wakeMilliseconds: 100) { dirty || interrupted != 0 || resized }
            if dirty || resized { draw() }
            if !names.isEmpty && names.allSatisfy({ isEnded($0) }) { break }
        }
        if names.isEmpty { return 0 }
        return names.allSatisfy { (tasks[$0]?["State"]?.string ?? ended[$0]) == "finished" } ? 0 : 1
    }

    var resized: Bool { terminal.isInteractive && columns != terminal.columns }

    func isEnded(_ name: String) -> Bool {
        guard let task = tasks[name] else { return true }
        return ["finished", "failed", "cancelled"].contains(task["State"]?.string ?? "")
    }

    func draw() {
        dirty = false
        let ordered = tasks.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        if !terminal.isInteractive {
            for name in ordered {
                guard let task = tasks[name] else { continue }
                let line = plainLine(name, task)
                if lastLine[name] != line {
                    context.out(line + "\n")
                    lastLine[name] = line
                }
            }
            return
        }
        columns = terminal.columns
        let nameWidth = min(24, ordered.compactMap { name in
            tasks[name].map { TerminalText.width(TerminalText.shown(shown(name, $0))) }
        }.max() ?? 0)
        let lines = ordered.compactMap { name in tasks[name].map { barLine(name, $0, nameWidth: nameWidth) } }
        context.out(drawing.frame(lines.isEmpty ? [terminal.paint("no tasks", .dim)] : lines))
    }

    /// What people recognise: the title ("Backing up photos"), the name when there is none.
    func shown(_ name: String, _ task: [String: BusValue]) -> String {
        let title = task["Title"]?.string ?? ""
        return title.isEmpty ? name : title
    }

    func plainLine(_ name: String, _ task: [String: BusValue]) -> String {
        let state = ReadCommands.state(of: task)
        let parts = [
            task["Label"]?.string ?? "", task["Detail"]?.string ?? "",
            task["State"]?.string == "failed" ? task["Message"]?.string ?? "" : "",
        ]
        return "\(TerminalText.shown(shown(name, task))): \(TerminalText.shown(state))"
            + parts.filter { !$0.isEmpty }.map { " " + TerminalText.shown($0) }.joined()
    }

    func barLine(_ name: String, _ task: [String: BusValue], nameWidth: Int) -> String {
        let state = TerminalText.shown(ReadCommands.state(of: task))
        let title = TerminalText.shown(shown(name, task))
        let nameShort = TerminalText.prefix(title, columns: nameWidth)
        let shownName = nameShort + String(repeating: " ", count: max(0, nameWidth - TerminalText.width(nameShort)))
        let barWidth = max(10, min(40, (columns - nameWidth) / 3))
        let fraction = task["Fraction"]?.double ?? 0
        let bar: String
        if task["Indeterminate"]?.bool == true && ["running", "stalled"].contains(state) {
            let position = Int((task["Serial"]?.integer ?? 0) % Int64(max(1, barWidth - 3)))
            bar = String(repeating: "░", count: position) + "███"
                + String(repeating: "░", count: barWidth - 3 - position)
        } else {
            let filled = Int((fraction * Double(barWidth)).rounded(.down))
            bar = String(repeating: "█", count: filled) + String(repeating: "░", count: barWidth - filled)
        }
        let color: Terminal.Color = switch state {
        case "failed", "cancelled": .red
        case "paused", "stalled": .yellow
        case "finished": .blue
        default: .green
        }
        let labelText = TerminalText.prefix(TerminalText.shown(task["Label"]?.string ?? ""), columns: 5)
        let label = labelText + String(repeating: " ", count: max(0, 5 - TerminalText.width(labelText)))
        var detail = TerminalText.shown(
            task["State"]?.string == "failed" ? (task["Message"]?.string ?? "") : (task["Detail"]?.string ?? ""))
        // What is left of the line after the columns and the four gaps of two spaces.
        let room = columns - nameWidth - barWidth - TerminalText.width(label) - TerminalText.width(state) - 8 - 1
        detail = TerminalText.prefix(detail, columns: max(0, room))
        return "\(shownName)  \(terminal.paint(bar, color))  \(label)  \(terminal.paint(state, color))  \(detail)"
    }
}
