/// Time as the store sees it. The daemon passes a real clock; tests pass `ManualClock`
/// (ProgressTestSupport).
public protocol Clock: AnyObject {
    /// Monotonic microseconds: for intervals (coalescing, rate detection).
    var monotonicMicros: Int64 { get }
    /// Wall-clock microseconds since the Unix epoch: for `Created` and `Updated`.
    var wallMicros: Int64 { get }
}

/// A clock that runs the timers armed on it. A test hands one to the daemon (ProgressBus's
/// `MainLoopClock(runningTimersOn:)`), whose timers then wait on it rather than on the main
/// loop, so a daemon part on it is timed in-process without waiting.
public protocol TimerClock: Clock {
    /// Runs `action` once the clock reaches `deadline` (monotonic microseconds), unless
    /// removed first; returns the timer's id.
    func addTimer(at deadline: Int64, _ action: @escaping () -> Void) -> Int
    func removeTimer(_ id: Int)
}
