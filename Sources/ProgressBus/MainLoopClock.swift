import CGLib
import ProgressModel

/// A clock as the daemon's main loop runs on it: what time it is, and where a MainLoopTimer
/// armed for a deadline on it waits. Whoever starts the daemon hands it one, so no part of
/// the daemon asks which clock it was given:
/// - `MainLoopClock()`, the daemon's: GLib's monotonic and real time, whose deadlines are
///   the main loop's own ready times;
/// - `MainLoopClock(runningTimersOn:)`, a test's: time moves when the test moves its clock;
///   a deadline still ahead waits until the clock is moved there, one already due goes to
///   the main loop at once, so a daemon part's timed rules run in-process on the test's time
///   and the rest of it as in the daemon;
/// - `MainLoopClock(realTimeFrom:)`, a test's clock that runs no timers: a deadline is waited
///   for on the main loop as far ahead in real time as it is on that clock.
public final class MainLoopClock: Clock {
    /// Where the deadlines of the timers armed on this clock wait.
    enum Deadlines {
        /// On the main loop: they are GLib's monotonic time.
        case glib
        /// On the clock, which runs its timers as it is moved.
        case clock(TimerClock)
        /// On the main loop, after as much real time as they are ahead on the clock.
        case realTime
    }

    let deadlines: Deadlines
    private let clock: Clock

    public init() {
        clock = GLibClock()
        deadlines = .glib
    }

    public init(runningTimersOn clock: TimerClock) {
        self.clock = clock
        deadlines = .clock(clock)
    }

    public init(realTimeFrom clock: Clock) {
        self.clock = clock
        deadlines = .realTime
    }

    public var monotonicMicros: Int64 { clock.monotonicMicros }
    public var wallMicros: Int64 { clock.wallMicros }
}
