import FoundationEssentials
import ProgressBus
import ProgressClient

#if canImport(Glibc)
import Glibc
#endif

/// Runs `progressctl run`'s command: on a pseudo-terminal when progressctl's stdout is a
/// terminal, else on pipes; passes its output through, reads its progress (OutputFollower,
/// then /proc while the output says nothing), forwards keys, window size and signals, and
/// leaves the user's terminal as it found it on every way out.
final class CommandRunner {
    let name: String
    let command: [String]
    let choice: ParserChoice
    let context: Context
    private var cancelRequested = false
    private var terminated = false
    private var process: CommandProcess!
    private var terminal: UserTerminal?
    private var reporter: ProgressReporter!
    private var follower: OutputFollower!
    private var terminalWriter: TerminalProgressWriter?

    static let forwardedSignals = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
    /// How often the files the command reads are looked at while its output says nothing,
    /// and from when: a tool that prints progress has its first line out by then.
    static let fileSampleInterval: TimeInterval = 0.5
    static let fileSampleDelay: TimeInterval = 1.5

    init(name: String, command: [String], choice: ParserChoice, context: Context) {
        self.name = name
        self.command = command
        self.choice = choice
        self.context = context
    }

    func run(start: [(String, BusValue)], terminalProgress: TerminalProgressMode) throws -> Int32 {
        try context.manager("Start", [.string(name), .vardict(start)])
        let bus = try context.bus()
        bus.subscribe(interface: BusNames.taskInterface, member: "CancelRequested",
                      path: BusNames.tasksPath + "/" + ((try? TaskPath.element(name)) ?? "")) { [self] _ in
            cancelRequested = true
        }
        let onTerminal = isatty(STDOUT_FILENO) == 1
        let handled = Self.forwardedSignals + [SIGCHLD] + (onTerminal ? [SIGWINCH, SIGTSTP] : [])
        signal(SIGPIPE, SIG_IGN)
        SignalPipe.install(handled)
        defer { SignalPipe.restoreDefaults(handled) }
        if onTerminal {
            let environment = context.environment
            if terminalProgress.shows(environment: environment, tmuxAllowsPassthrough: {
                TerminalProgressMode.tmuxAllowsPassthrough(environment: environment)
            }) {
                terminalWriter = TerminalProgressWriter(descriptor: STDOUT_FILENO, environment: environment)
            }
        }
        reporter = ProgressReporter(name: name, context: context, terminal: terminalWriter)
        do {
            if onTerminal {
                let terminal = UserTerminal()
                self.terminal = terminal
                process = try .onTerminal(
                    command, mode: terminal.saved, size: terminal.size, terminalInput: terminal.inputIsTerminal)
            } else {
                process = try .onPipes(command)
            }
        } catch let error as CommandProcess.SpawnError {
            try context.manager("Fail", [.string(name), .string("could not run \(command[0]): \(error.description)")])
            context.err("progressctl run: could not run \(command[0]): \(error.description)\n")
            return 127
        }
        // A pipe keeps what the command wrote; the user's terminal gets OSC 9;4 only from
        // progressctl, and only when it declared it understands it.
        follower = OutputFollower(
            choice: choice, command: command, streams: process.outputs.count, keepsProgressSequences: !onTerminal)
        terminal?.enterRaw()
        defer {
            terminalWriter?.clear()
            terminal?.restore()
            process.closeAll()
        }
        let status = loop()
        reporter.flush(force: true)
        terminalWriter?.clear()
        terminal?.restore()
        return try finish(status: status)
    }

    /// Until the command has exited and its output is read; returns its wait status.
    private func loop() -> Int32 {
        var open = process.outputs
        var forwardsKeys = terminal.map { $0.inputIsTerminal && $0.isForeground } ?? false
        var status: Int32?
        var lastFileSample = Date().addingTimeInterval(Self.fileSampleDelay - Self.fileSampleInterval)
        let files = choice.readsFiles(command: command) ? ProcessFileProgress(root: process.pid) : nil
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while open.contains(where: { $0 >= 0 }) {
            var polled = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            polled.append(pollfd(fd: SignalPipe.readEnd, events: Int16(POLLIN), revents: 0))
            if forwardsKeys { polled.append(pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)) }
            // Once the command has exited, whatever is left is read without waiting long.
            let ready = poll(&polled, nfds_t(polled.count), status == nil ? 250 : 100)
            if ready == 0 {
                for (index, descriptor) in open.enumerated() where descriptor >= 0 {
                    show(follower.flush(stream: index, commandEnded: status != nil), stream: index)
                }
                if status != nil { break }
            }
            for (index, entry) in polled.prefix(open.count).enumerated() where entry.fd >= 0 && entry.revents != 0 {
                let count = read(entry.fd, &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else {
                    open[index] = -1
                    continue
                }
                let result = follower.feed(buffer[..<count], stream: index)
                show(result.shown, stream: index)
                result.readings.forEach(reporter.apply)
            }
            if forwardsKeys, let keys = polled.last, keys.revents != 0 {
                forwardsKeys = forwardKeys()
            }
            for caught in SignalPipe.caught() { handle(caught) }
            if status == nil, process.master != nil, let exited = process.reap(blocking: false) {
                status = exited
                process.closeSlave()
            }
            BusConnection.drain()
            if cancelRequested && !terminated {
                terminated = true
                signalCommand(SIGTERM)
            }
            if let files, status == nil, !follower.hasReadProgress,
               Date().timeIntervalSince(lastFileSample) >= Self.fileSampleInterval {
                lastFileSample = Date()
                if let reading = files.sample()?.reading { reporter.apply(reading) }
            }
            reporter.flush()
            if follower.isBetweenSequences(stream: 0) { terminalWriter?.writeIfDue() }
        }
        return status ?? process.reap(blocking: true) ?? 0
    }

    private func show(_ bytes: [UInt8], stream: Int) {
        guard !bytes.isEmpty else { return }
        Self.writeAll(stream == 0 ? STDOUT_FILENO : STDERR_FILENO, bytes)
    }

    /// Copies typed keys to the command's terminal; false once stdin has ended. The
    /// suspend key (Ctrl-Z) suspends progressctl and the command together while the
    /// command's terminal generates signals, as the shell's job control would.
    private func forwardKeys() -> Bool {
        guard let master = process.master else { return false }
        var keys = [UInt8](repeating: 0, count: 4096)
        let count = read(STDIN_FILENO, &keys, keys.count)
        if count < 0 { return errno == EINTR || errno == EAGAIN }
        if count == 0 { return false }
        var mode = termios()
        let suspendKey = tcgetattr(master, &mode) == 0 && mode.c_lflag & tcflag_t(ISIG) != 0
            ? withUnsafeBytes(of: mode.c_cc) { $0[Int(VSUSP)] } : nil
        var start = 0
        for index in 0..<count where suspendKey != nil && suspendKey != 0 && keys[index] == suspendKey {
            Self.writeAll(master, Array(keys[start..<index]))
            start = index + 1
            suspend()
        }
        Self.writeAll(master, Array(keys[start..<count]))
        return true
    }

    private func handle(_ caught: CaughtSignal) {
        switch caught.number {
        case SIGWINCH:
            if var size = terminal?.size, let master = process.master { _ = ioctl(master, UInt(TIOCSWINSZ), &size) }
        case SIGTSTP:
            suspend()
        case SIGCHLD:
            break
        default:
            // On pipes the command shares progressctl's process group, so a signal the
            // terminal sent (Ctrl-C) has reached it already: passed on, it would hear it twice.
            if process.master == nil && caught.fromKernel { return }
            signalCommand(caught.number)
        }
    }

    /// Sends a signal to what runs in the command's terminal (the command's own process
    /// group, or a job it put in the foreground, and the command), or to the command on pipes.
    private func signalCommand(_ number: Int32) {
        if process.master != nil {
            let group = process.foregroundGroup
            kill(-group, number)
            // The command leads its own group: signalled already when that group is in front.
            if group == process.pid { return }
        }
        kill(process.pid, number)
    }

    /// Ctrl-Z or SIGTSTP: stops the command, gives the terminal back as it was, stops
    /// progressctl; on `fg` takes the terminal again and lets the command go on.
    private func suspend() {
        signalCommand(SIGSTOP)
        terminalWriter?.clear()
        terminal?.restore()
        raise(SIGSTOP)
        terminal?.enterRaw()
        terminalWriter?.forget()
        if var size = terminal?.size, let master = process.master { _ = ioctl(master, UInt(TIOCSWINSZ), &size) }
        signalCommand(SIGCONT)
    }

    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) {
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, bytes.count - written) }
            if result < 0 && errno == EINTR { continue }
            if result <= 0 { return }
            written += result
        }
    }

    /// Finishes, fails or cancels the task by the command's wait status; returns its exit status.
    private func finish(status: Int32) throws -> Int32 {
        let signalNumber = status & 0x7F
        let killed = signalNumber != 0 && signalNumber != 0x7F
        let exitStatus = killed ? 128 + signalNumber : (status >> 8) & 0xFF
        BusConnection.drain()
        if cancelRequested {
            try context.manager("Update", [.string(name), .vardict([("state", .string("cancelled"))])])
        } else if exitStatus == 0 {
            try context.manager("Finish", [.string(name)])
        } else {
            let how = killed ? "was killed by signal \(signalNumber)" : "exited with status \(exitStatus)"
            let reason = reporter.reportedError.map { ": \($0)" } ?? ""
            try context.manager("Fail", [.string(name), .string("\(command[0]) \(how)\(reason)")])
        }
        return exitStatus
    }
}
