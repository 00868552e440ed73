import FoundationEssentials
import ProgressCommandLine
import ProgressBus
import ProgressClient

#if canImport(Glibc)
import Glibc
#endif

/// Copies stdin to stdout, like pv, reporting the bytes as the task's progress.
enum PipeCommand {
    static let command = Command(
        "pipe", help: #"""
        Usage: progressctl pipe NAME [--size BYTES] [--title TEXT] [--terminal-progress WHEN]

        Copies stdin to stdout, reporting the bytes as progress.

        The task is determinate when --size is given or stdin is a regular file; otherwise it
        counts bytes. It finishes at the end of the input and fails if writing fails.
        With --terminal-progress auto (the default) a terminal on stderr that declares
        OSC 9;4 shows the progress in its tab (see run), cleared however progressctl ends.

        Options:
          --size BYTES               how many bytes will come
          --title TEXT               what the task does
          --terminal-progress WHEN   auto, always or never: show progress in the terminal's tab

        Examples:
          progressctl pipe download --size 734003200 < ubuntu.iso > /mnt/usb/ubuntu.iso
          tar c ~/Documents | progressctl pipe archive | gzip > documents.tar.gz
        """#,
        run: { arguments, context in
            let name = try arguments.positionals("NAME")[0]
            var size = try arguments.count("size")
            var status = stat()
            if size == nil, fstat(STDIN_FILENO, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG {
                size = UInt64(status.st_size)
            }
            var options: [(String, BusValue)] = [("unit", .string("bytes")), ("lifetime", .string("caller"))]
            if let title = arguments.values["title"] { options.append(("title", .string(title))) }
            if let size {
                options.append(("total", .uint64(size)))
            } else {
                options.append(("indeterminate", .bool(true)))
            }
            let terminalProgress = try TerminalProgressMode.option(arguments.values["terminal-progress"])
            try context.manager("Start", [.string(name), .vardict(options)])
            signal(SIGPIPE, SIG_IGN)
            let bar = terminalBar(terminalProgress, environment: context.environment)
            defer { bar?.clear() }

            var copied: UInt64 = 0
            var lastReport = Date()
            var buffer = [UInt8](repeating: 0, count: 65_536)
            func report() throws {
                var changes: [(String, BusValue)] = [("completed", .uint64(copied))]
                if let size, copied > size { changes.append(("total", .uint64(copied))) }
                try context.manager("Update", [.string(name), .vardict(changes)])
                lastReport = Date()
                if let size, size > 0 {
                    bar?.want(.value(Int(min(Double(copied) / Double(size), 1) * 100)))
                }
                bar?.writeIfDue()
            }
            while true {
                let count = read(STDIN_FILENO, &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                if count < 0 {
                    let reason = String(cString: strerror(errno))
                    try context.manager("Fail", [.string(name), .string("reading failed: \(reason)")])
                    context.err("progressctl pipe: reading failed: \(reason)\n")
                    return 1
                }
                if count == 0 { break }
                var written = 0
                while written < count {
                    let result = buffer.withUnsafeBytes {
                        write(STDOUT_FILENO, $0.baseAddress! + written, count - written)
                    }
                    if result < 0 && errno == EINTR { continue }
                    if result < 0 {
                        let reason = String(cString: strerror(errno))
                        try report()
                        try context.manager("Fail", [.string(name), .string("writing failed: \(reason)")])
                        context.err("progressctl pipe: writing failed: \(reason)\n")
                        return 1
                    }
                    written += result
                }
                copied += UInt64(count)
                if Date().timeIntervalSince(lastReport) >= 0.1 { try report() }
            }
            try report()
            try context.manager("Finish", [.string(name)])
            return 0
        })

    /// The terminal's own bar, on stderr (stdout carries the data), when it is a terminal
    /// that shows one.
    private static func terminalBar(
        _ mode: TerminalProgressMode, environment: [String: String]
    ) -> TerminalProgressWriter? {
        guard isatty(STDERR_FILENO) == 1, mode.shows(environment: environment, tmuxAllowsPassthrough: {
            TerminalProgressMode.tmuxAllowsPassthrough(environment: environment)
        }) else { return nil }
        let writer = TerminalProgressWriter(descriptor: STDERR_FILENO, environment: environment)
        TerminalProgressSignalClear.install(descriptor: STDERR_FILENO, insideTmux: writer.insideTmux)
        writer.writeIfDue()
        return writer
    }
}
