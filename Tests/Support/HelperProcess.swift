import Foundation
#if canImport(Glibc)
import Glibc
#endif
import ProgressClient

/// A helper program for a test (a fake server, a KDE client), tied to the test process: it
/// runs under a shell that also waits on a pipe from this process, and when the test
/// process exits or crashes the pipe closes and the shell kills the helper, as PrivateBus
/// does with its bus. Its stdout is collected line by line; `pid` is the helper's own.
/// (Sendable by hand: the output handler runs on another thread, and `lock` guards what it fills.)
public final class HelperProcess: @unchecked Sendable {
    public let shell: Process
    private let lifeline = Pipe()
    private let output = Pipe()
    private let exit: ProcessExit
    private let lock = NSLock()
    private var buffer = Data()
    private var collected: [String] = []
    public private(set) var pid: Int32 = 0

    /// Runs `executable` with `arguments`; `environment` replaces the inherited one.
    /// With `readsCommands` the helper's stdin is the lifeline itself (it takes `send`'s lines
    /// and must exit at end of input); otherwise a watcher kills it when the lifeline closes.
    /// stderr goes to `errorFile` when given (else it is inherited), so no pipe can fill.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String], readsCommands: Bool = false,
        errorFile: URL? = nil
    ) throws {
        shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        let script = readsCommands
            ? "echo \"helper-pid $$\"; exec \"$@\""
            // A background job's stdin is /dev/null in sh: the watcher reads a copy (fd 3).
            : "exec 3<&0; \"$@\" </dev/null 3<&- & pid=$!; echo \"helper-pid $pid\"; "
                + "(read -r _ <&3; kill $pid 2>/dev/null) & watcher=$!; "
                + "wait $pid; status=$?; kill $watcher 2>/dev/null; exit $status"
        shell.arguments = ["-c", script, "helper", executable] + arguments
        shell.environment = environment
        shell.standardInput = lifeline
        shell.standardOutput = output
        exit = ProcessExit(shell)
        if let errorFile {
            _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
            shell.standardError = try FileHandle(forWritingTo: errorFile)
        }
        output.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self, !data.isEmpty else { return }
            self.lock.lock()
            self.buffer.append(data)
            while let newline = self.buffer.firstIndex(of: UInt8(ascii: "\n")) {
                self.collected.append(String(decoding: self.buffer[..<newline], as: UTF8.self))
                self.buffer.removeSubrange(...newline)
            }
            self.lock.unlock()
        }
        try shell.run()
        guard let line = waitForLine(seconds: 10, where: { $0.hasPrefix("helper-pid ") }) else {
            throw TestSupportError("\(executable) did not start")
        }
        pid = Int32(line.dropFirst("helper-pid ".count)) ?? 0
    }

    /// Every line so far, the shell's pid line left out.
    public var lines: [String] {
        lock.lock()
        defer { lock.unlock() }
        return collected.filter { !$0.hasPrefix("helper-pid ") }
    }

    /// Pumps the GLib main loop (for the test's own connections) until a line satisfies
    /// `condition`, and returns it.
    @discardableResult
    public func waitForLine(seconds: Double = 10, where condition: (String) -> Bool) -> String? {
        var found: String?
        _ = BusConnection.pump(seconds: seconds) {
            lock.lock()
            found = collected.first(where: condition)
            lock.unlock()
            return found != nil
        }
        return found
    }

    /// A command line for a helper that reads its standard input.
    public func send(_ command: String) {
        lifeline.fileHandleForWriting.write(Data((command + "\n").utf8))
    }

    public var isRunning: Bool { shell.isRunning }

    /// Waits for the helper to exit on its own; its exit status, or nil on timeout.
    public func waitForExit(seconds: Double) -> Int32? {
        guard BusConnection.pump(seconds: seconds, until: { !shell.isRunning }) else { return nil }
        return shell.terminationStatus
    }

    public func kill(_ signal: Int32 = SIGKILL) {
        if pid != 0 { Glibc.kill(pid, signal) }
    }

    /// Closes the lifeline (the helper is killed if still running) and waits.
    public func stop() {
        try? lifeline.fileHandleForWriting.close()
        exit.wait()
        output.fileHandleForReading.readabilityHandler = nil
    }

    deinit { stop() }
}
