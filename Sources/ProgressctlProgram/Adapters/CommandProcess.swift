import CPlatform
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// A command started with posix_spawn, either on a pseudo-terminal of its own (so that it
/// behaves as it does in the user's terminal: rsync, curl and git show progress only there)
/// or with its stdout and stderr on pipes.
final class CommandProcess {
    let pid: pid_t
    /// What to read, in order: the terminal's master, or the stdout and stderr pipes.
    let outputs: [Int32]
    /// The pseudo-terminal's master side (keys typed go there), or nil on pipes.
    let master: Int32?
    /// The terminal's slave side, kept open here so that the master never reads EIO before
    /// the command has opened it; closed once the command has exited.
    private var slave: Int32?

    struct SpawnError: Error {
        let code: Int32
        var description: String { String(cString: strerror(code)) }
    }

    private init(pid: pid_t, outputs: [Int32], master: Int32?, slave: Int32?) {
        self.pid = pid
        self.outputs = outputs
        self.master = master
        self.slave = slave
    }

    /// On a new pseudo-terminal with the user's terminal mode and size; the command leads a
    /// session of its own with it as controlling terminal. Its stdin is the terminal when
    /// `terminalInput`, else progressctl's own stdin.
    static func onTerminal(
        _ command: [String], mode: termios?, size: winsize?, terminalInput: Bool
    ) throws -> CommandProcess {
        var path = [CChar](repeating: 0, count: Int(PATH_MAX))
        let master = cplatform_open_pty(&path, path.count)
        guard master >= 0 else { throw SpawnError(code: errno) }
        let name = path.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        let slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard slave >= 0 else {
            let code = errno
            close(master)
            throw SpawnError(code: code)
        }
        if var mode { tcsetattr(slave, TCSANOW, &mode) }
        if var size { _ = ioctl(master, UInt(TIOCSWINSZ), &size) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Opened after setsid and without O_NOCTTY, it becomes the controlling terminal.
        let first: Int32 = terminalInput ? 0 : 1
        posix_spawn_file_actions_addopen(&actions, first, name, O_RDWR, 0)
        for target in (first + 1)...2 { posix_spawn_file_actions_adddup2(&actions, first, target) }
        do {
            let pid = try spawn(command, actions: &actions, newSession: true)
            return CommandProcess(pid: pid, outputs: [master], master: master, slave: slave)
        } catch {
            close(slave)
            close(master)
            throw error
        }
    }

    /// With stdout and stderr on pipes, stdin inherited: today's behaviour off a terminal.
    static func onPipes(_ command: [String]) throws -> CommandProcess {
        var output: [Int32] = [0, 0], errors: [Int32] = [0, 0]
        guard pipeClosedOnExec(&output) == 0 else { throw SpawnError(code: errno) }
        guard pipeClosedOnExec(&errors) == 0 else {
            let code = errno
            output.forEach { close($0) }
            throw SpawnError(code: code)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errors[1], 2)
        defer {
            close(output[1])
            close(errors[1])
        }
        do {
            let pid = try spawn(command, actions: &actions, newSession: false)
            return CommandProcess(pid: pid, outputs: [output[0], errors[0]], master: nil, slave: nil)
        } catch {
            close(output[0])
            close(errors[0])
            throw error
        }
    }

    /// What a short command prints on stdout (its stderr and stdin are /dev/null), once it
    /// has exited; nil when it could not be run.
    static func output(of command: [String], environment: [String: String]) -> String? {
        var ends: [Int32] = [0, 0]
        guard pipeClosedOnExec(&ends) == 0 else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let pid = try? spawn(command, actions: &actions, newSession: false, environment: environment)
        close(ends[1])
        defer { close(ends[0]) }
        guard let pid else { return nil }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(ends[0], &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            output += buffer[..<count]
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return String(decoding: output, as: UTF8.self)
    }

    /// `environment` replaces progressctl's own for the command (the PATH searched is still
    /// progressctl's, as posix_spawnp does).
    private static func spawn(
        _ command: [String], actions: inout posix_spawn_file_actions_t, newSession: Bool,
        environment: [String: String]? = nil
    ) throws -> pid_t {
        // Only stdin, stdout and stderr, as Foundation's Process gave it: an inherited
        // descriptor (the test runner's status socket, a caller's pipe) would outlive
        // progressctl in the command and keep whoever waits on it waiting. Closed after the
        // caller's actions, which may read descriptors above 2.
        guard cplatform_spawn_close_from(&actions, 3) == 0 else { throw SpawnError(code: errno) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // progressctl ignores SIGPIPE and catches others: the command gets the defaults.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGWINCH, SIGCHLD, SIGCONT] {
            sigaddset(&defaults, signal)
        }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        let setsid = newSession ? Int32(cplatform_spawn_new_session_flag()) : 0
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | setsid))
        var argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?]? = environment.map {
            $0.map { strdup("\($0.key)=\($0.value)") } + [nil]
        }
        defer { (argv + (envp ?? [])).forEach { free($0) } }
        var pid: pid_t = 0
        let result = envp == nil
            ? posix_spawnp(&pid, command[0], &actions, &attributes, &argv, environ)
            : posix_spawnp(&pid, command[0], &actions, &attributes, &argv, &envp!)
        guard result == 0 else { throw SpawnError(code: result) }
        return pid
    }

    /// The command's wait status once it has exited (nil while it runs, with `blocking` false).
    func reap(blocking: Bool) -> Int32? {
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, blocking ? 0 : WNOHANG)
            if result == pid { return status }
            if result < 0 && errno == EINTR { continue }
            return nil
        }
    }

    /// After the command has exited: the master then reads EIO once nothing holds the slave.
    func closeSlave() {
        if let slave { close(slave) }
        slave = nil
    }

    /// The process group in the terminal's foreground (the command's own, or a job it
    /// started), for signals meant for whatever is running there.
    var foregroundGroup: pid_t {
        if let master { let group = tcgetpgrp(master); if group > 0 { return group } }
        return pid
    }

    func closeAll() {
        closeSlave()
        for descriptor in outputs { close(descriptor) }
    }
}

/// A pipe with both ends closed on exec (pipe2), and non-blocking ends when asked.
func pipeClosedOnExec(_ ends: inout [Int32], nonBlocking: Bool = false) -> Int32 {
    precondition(ends.count == 2)
    return ends.withUnsafeMutableBufferPointer { cplatform_pipe($0.baseAddress, nonBlocking ? 1 : 0) }
}
