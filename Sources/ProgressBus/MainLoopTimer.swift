import CGLib
import ProgressCore

/// A one-shot GLib timeout on the main loop that can be armed again: `arm(at:)` keeps the
/// earlier of the armed and the new deadline, and the action runs once when it comes.
/// The one place that turns a monotonic deadline into a GLib timeout, so rounding and
/// clamping are done alike for every timer in the daemon. On a `TimerClock` (a test's
/// ManualTimerClock) a deadline still ahead is the clock's to run when moved there; one
/// already due goes to the main loop as now, so a part's timed rules run in-process on
/// the test's time, the rest of it as in the daemon.
public final class MainLoopTimer {
    private let clock: Clock
    /// The clock as a TimerClock, when it is one (a test's), found once rather than at
    /// every arm.
    private let timerClock: TimerClock?
    private let priority: Int32
    private let action: () -> Void
    private var source: UInt32 = 0
    /// The armed timer's id on a TimerClock (0: none).
    private var clockTimer = 0
    /// When the armed source fires; `.max` while unarmed.
    public private(set) var deadline: Int64 = .max

    /// `priority` is GLib's: a timer at G_PRIORITY_DEFAULT_IDLE waits, once due, until no
    /// call or other event of default priority is ready.
    public init(clock: Clock, priority: Int32 = G_PRIORITY_DEFAULT, _ action: @escaping () -> Void) {
        self.clock = clock
        timerClock = clock as? TimerClock
        self.priority = priority
        self.action = action
    }

    deinit { cancel() }

    public var isArmed: Bool { source != 0 || clockTimer != 0 }

    /// Arms the timer for `deadline` (monotonic microseconds), unless it already fires sooner.
    public func arm(at deadline: Int64) {
        if isArmed && self.deadline <= deadline { return }
        cancel()
        self.deadline = deadline
        let delayMicros = max(0, deadline - clock.monotonicMicros)
        if delayMicros > 0, let timers = timerClock {
            clockTimer = timers.addTimer(at: deadline) { [weak self] in self?.fire() }
            return
        }
        // Rounded up, so the action never runs before the deadline; clamped to what a
        // GLib timeout can wait.
        let milliseconds = UInt32(min(Int64(UInt32.max), (delayMicros + 999) / 1000))
        let box = Unmanaged.passRetained(TimerBox(self)).toOpaque()
        source = g_timeout_add_full(priority, milliseconds, { box in
            assertOnMainLoop()
            Unmanaged<TimerBox>.fromOpaque(box!).takeUnretainedValue().timer?.fire()
            return 0 // G_SOURCE_REMOVE
        }, box, { box in Unmanaged<TimerBox>.fromOpaque(box!).release() })
    }

    public func cancel() {
        if source != 0 { g_source_remove(source) }
        if clockTimer != 0 { timerClock?.removeTimer(clockTimer) }
        source = 0
        clockTimer = 0
        deadline = .max
    }

    private func fire() {
        source = 0
        clockTimer = 0
        deadline = .max
        action()
    }
}

/// What the GLib source holds: a weak reference, so that a timer dropped while armed is
/// simply not called.
private final class TimerBox {
    weak var timer: MainLoopTimer?
    init(_ timer: MainLoopTimer) { self.timer = timer }
}

/// Stops the process if the caller is not on the thread that runs the GLib main loop.
/// Every handler entered from GLib calls it first: the daemon's state has one owner, that
/// thread, and a call from anywhere else would be a race the tests could miss.
@inline(__always)
public func assertOnMainLoop(file: StaticString = #fileID, line: UInt = #line) {
    precondition(g_main_context_is_owner(nil) != 0, "called off the GLib main loop's thread", file: file, line: line)
}
