import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// The user's terminal while a command runs on a terminal of its own: raw, so that every
/// key (Ctrl-C included) goes to the command and its output is shown as it wrote it, and
/// put back as it was on every way out (exit, failure, signal, suspend).
final class UserTerminal {
    /// The terminal progressctl writes to (its stdout).
    let descriptor: Int32 = STDOUT_FILENO
    let inputIsTerminal: Bool
    let isForeground: Bool
    let saved: termios?
    private var isRaw = false

    /// Only a job in the terminal's foreground may change its mode or read its keys (a
    /// background `progressctl run … &` would be stopped by SIGTTOU or SIGTTIN): in the
    /// background the command still gets a terminal of its own, with the terminal as it is.
    init() {
        isForeground = tcgetpgrp(STDOUT_FILENO) == getpgrp()
        inputIsTerminal = isatty(STDIN_FILENO) == 1
        var mode = termios()
        saved = isForeground && tcgetattr(STDOUT_FILENO, &mode) == 0 ? mode : nil
    }

    var size: winsize? {
        var size = winsize()
        return ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0 ? size : nil
    }

    /// Raw input and output when stdin is this terminal; with stdin elsewhere only the
    /// output processing is turned off (the command's terminal already did it), so that
    /// the keyboard still interrupts as it did.
    func enterRaw() {
        guard var mode = saved, !isRaw else { return }
        if inputIsTerminal { cfmakeraw(&mode) } else { mode.c_oflag &= ~tcflag_t(OPOST) }
        isRaw = tcsetattr(descriptor, TCSADRAIN, &mode) == 0
    }

    func restore() {
        guard var mode = saved, isRaw else { return }
        tcsetattr(descriptor, TCSADRAIN, &mode)
        isRaw = false
    }
}

/// Signals as bytes on a pipe, so that the main loop handles them between two polls (a
/// handler itself may do almost nothing safely). Each byte is the signal's number, with
/// `CaughtSignal.fromKernelFlag` when the kernel sent it (a terminal's Ctrl-C, Ctrl-\\ or
/// hangup, which reach every process of the terminal's foreground group) rather than a
/// process (kill, which reaches only the processes it names).
enum SignalPipe {
    nonisolated(unsafe) private static var writeEnd: Int32 = -1
    nonisolated(unsafe) private(set) static var readEnd: Int32 = -1

    static func install(_ signals: [Int32]) {
        if readEnd < 0 {
            var ends: [Int32] = [0, 0]
            guard pipeClosedOnExec(&ends, nonBlocking: true) == 0 else { return }
            readEnd = ends[0]
            writeEnd = ends[1]
        }
        for number in signals {
            var action = sigaction()
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_SIGINFO | SA_RESTART
            action.__sigaction_handler.sa_sigaction = { caught, info, _ in
                // si_code is positive for what the kernel sends (SI_KERNEL for a terminal's
                // signals), zero or negative for kill, sigqueue and their kind.
                let fromKernel = (info?.pointee.si_code ?? 0) > 0 && caught != SIGCHLD
                var byte = UInt8(truncatingIfNeeded: caught) | (fromKernel ? CaughtSignal.fromKernelFlag : 0)
                let saved = errno
                _ = write(SignalPipe.writeEnd, &byte, 1)
                errno = saved
            }
            sigaction(number, &action, nil)
        }
    }

    static func restoreDefaults(_ signals: [Int32]) {
        for number in signals { signal(number, SIG_DFL) }
    }

    /// The signals caught since the last call, in the order they came.
    static func caught() -> [CaughtSignal] {
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = read(readEnd, &bytes, bytes.count)
        return count > 0 ? bytes[..<count].map(CaughtSignal.init(byte:)) : []
    }
}

/// One signal progressctl caught, and whether the kernel sent it.
struct CaughtSignal: Equatable {
    static let fromKernelFlag: UInt8 = 0x80
    let number: Int32
    let fromKernel: Bool

    init(byte: UInt8) {
        number = Int32(byte & ~Self.fromKernelFlag)
        fromKernel = byte & Self.fromKernelFlag != 0
    }
}
