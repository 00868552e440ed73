import Foundation
import ProgressCommandLine
import ProgressBus
import ProgressClient
import ProgressCore

#if canImport(Glibc)
import Glibc
#endif

/// Runs a command as a task: its output passes through, a regex can read progress from it,
/// and its exit status finishes or fails the task and becomes progressctl's own.
enum RunCommand {
    static let command = Command(
        name: "run", usage: ["run NAME [--title TEXT] [--app-id ID] [--progress-regex REGEX] -- COMMAND [ARGUMENTS...]"],
        summary: "Runs a command as a task, finished or failed by its exit status.",
        details: """
            Without --progress-regex the task is indeterminate. The regex is matched against each
            line the command prints (lines may end in \\r, as progress meters do): with one
            group it reads a percent, with two it reads DONE and TOTAL. The task is bound to
            progressctl's connection, so it fails at once if progressctl dies, and a cancel
            request stops the command with SIGTERM. progressctl exits with the command's status.
            """,
        options: [
            OptionSpec("title", value: "TEXT", "what the task does (default: the command)"),
            OptionSpec("app-id", value: "ID", "the desktop file id of the application (its dock icon shows the progress)"),
            OptionSpec("progress-regex", value: "REGEX", "reads a percent, or DONE and TOTAL, from the output"),
        ],
        examples: [
            "progressctl run backup -- rsync -a ~/Documents /mnt/backup",
            #"progressctl run build --progress-regex '\[ *([0-9]+)%\]' -- make"#,
            #"progressctl run convert --progress-regex '([0-9]+)/([0-9]+)' -- ./convert-all.sh"#,
        ],
        run: { arguments, context in
            _ = try arguments.positionals("NAME")
            guard let command = arguments.afterSeparator, !command.isEmpty else {
                throw UsageError("missing COMMAND after '--'")
            }
            var regex: NSRegularExpression?
            if let pattern = arguments.values["progress-regex"] {
                do {
                    regex = try NSRegularExpression(pattern: pattern)
                } catch {
                    throw UsageError("--progress-regex '\(pattern)' is not a regular expression")
                }
                guard (1...2).contains(regex!.numberOfCaptureGroups) else {
                    throw UsageError("--progress-regex needs one group (a percent) or two (done and total)")
                }
            }
            return try Runner(name: arguments.positionals[0], command: command, regex: regex,
                              title: arguments.values["title"] ?? command.joined(separator: " "),
                              appId: arguments.values["app-id"], context: context).run()
        })
}

private final class Runner {
    let name: String
    let command: [String]
    let regex: NSRegularExpression?
    let title: String
    let appId: String?
    let context: Context
    var lastReport = Date.distantPast
    var pendingReport: [(String, BusValue)]?
    var cancelRequested = false

    init(name: String, command: [String], regex: NSRegularExpression?, title: String, appId: String?, context: Context) {
        self.name = name
        self.command = command
        self.regex = regex
        self.title = title
        self.appId = appId
        self.context = context
    }

    func run() throws -> Int32 {
        try context.manager("Start", [.string(name), .vardict([
            ("title", .string(title)), ("indeterminate", .bool(regex == nil)), ("lifetime", .string("caller")),
            ("cancellable", .bool(true)),
        ] + (appId.map { [("app-id", BusValue.string($0))] } ?? []))])
        let bus = try context.bus()
        bus.subscribe(interface: BusNames.taskInterface, member: "CancelRequested",
                      path: BusNames.tasksPath + "/" + ((try? TaskPath.element(name)) ?? "")) { [self] _ in
            cancelRequested = true
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        do {
            try process.run()
        } catch {
            try context.manager("Fail", [.string(name), .string("could not run \(command[0]): \(error)")])
            context.err("progressctl run: could not run \(command[0]): \(error)\n")
            return 127
        }
        var lines = [Data(), Data()]
        var open = [output.fileHandleForReading.fileDescriptor, errors.fileHandleForReading.fileDescriptor]
        var lastPulse = Date()
        var terminated = false
        while open.contains(where: { $0 >= 0 }) {
            var polled = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            _ = poll(&polled, nfds_t(polled.count), 250)
            for (index, entry) in polled.enumerated() where entry.fd >= 0 && entry.revents != 0 {
                var buffer = [UInt8](repeating: 0, count: 65_536)
                let count = read(entry.fd, &buffer, buffer.count)
                if count <= 0 {
                    open[index] = -1
                    continue
                }
                let chunk = Data(buffer[..<count])
                (index == 0 ? FileHandle.standardOutput : FileHandle.standardError).write(chunk)
                if regex != nil { readProgress(chunk, into: &lines[index]) }
            }
            BusConnection.drain()
            if cancelRequested && !terminated {
                process.terminate()
                terminated = true
            }
            if regex == nil && Date().timeIntervalSince(lastPulse) >= 1 {
                _ = try? context.manager("Pulse", [.string(name)])
                lastPulse = Date()
            }
            flushReport(force: false)
        }
        process.waitUntilExit()
        flushReport(force: true)
        let status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        if cancelRequested {
            try context.manager("Update", [.string(name), .vardict([("state", .string("cancelled"))])])
        } else if status == 0 {
            try context.manager("Finish", [.string(name)])
        } else {
            let how = process.terminationReason == .uncaughtSignal
                ? "was killed by signal \(process.terminationStatus)" : "exited with status \(status)"
            try context.manager("Fail", [.string(name), .string("\(command[0]) \(how)")])
        }
        return status
    }

    /// Splits output into lines (at \n or \r) and reads progress from each complete one.
    private func readProgress(_ chunk: Data, into pending: inout Data) {
        pending.append(chunk)
        while let end = pending.firstIndex(where: { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }) {
            let line = String(decoding: pending[pending.startIndex..<end], as: UTF8.self)
            pending.removeSubrange(pending.startIndex...end)
            guard let regex, let match = regex.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) else { continue }
            func group(_ index: Int) -> String? { Range(match.range(at: index), in: line).map { String(line[$0]) } }
            if regex.numberOfCaptureGroups == 1, let percent = group(1).flatMap(Double.init), (0...100).contains(percent) {
                pendingReport = [("fraction", .double(percent / 100))]
            } else if regex.numberOfCaptureGroups == 2, let done = group(1).flatMap(UInt64.init),
                      let total = group(2).flatMap(UInt64.init), total > 0, done <= total {
                pendingReport = [("total", .uint64(total)), ("completed", .uint64(done))]
            }
        }
    }

    /// At most ten reports a second: the daemon would coalesce more anyway.
    private func flushReport(force: Bool) {
        guard let report = pendingReport, force || Date().timeIntervalSince(lastReport) >= 0.1 else { return }
        pendingReport = nil
        lastReport = Date()
        _ = try? context.manager("Update", [.string(name), .vardict(report)])
    }
}

/// The object path element of a task name, as the daemon escapes it.
enum TaskPath {
    static func element(_ name: String) throws -> String {
        try TaskName(name).pathElement
    }
}
