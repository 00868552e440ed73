import Foundation

/// Waits for a child process to exit. Foundation's `waitUntilExit` looks at the child every
/// 50 ms on Linux (its run loop is not woken), and a test starts and stops a bus, progressd
/// and often helpers and commands: 50 ms each. The termination handler is called as soon
/// as Foundation has reaped the child, with `isRunning` false and the status set.
public final class ProcessExit: Sendable {
    private let exited = DispatchSemaphore(value: 0)

    /// Watches `process`; made before `run()`, so that an early exit is not missed.
    /// It takes the process's termination handler.
    public init(_ process: Process) {
        let exited = exited
        process.terminationHandler = { _ in exited.signal() }
    }

    /// Blocks until the process has exited (at once if it has already).
    public func wait() {
        exited.wait()
        exited.signal()  // for the next waiter
    }

    /// Blocks until the process has exited or `seconds` have passed; whether it exited.
    public func wait(seconds: Double) -> Bool {
        guard exited.wait(timeout: .now() + seconds) == .success else { return false }
        exited.signal()
        return true
    }
}
