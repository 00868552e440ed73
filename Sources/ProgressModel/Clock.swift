/// Time as the store sees it. The daemon passes a real clock; tests pass `ManualClock`.
public protocol Clock: AnyObject {
    /// Monotonic microseconds: for intervals (coalescing, rate detection).
    var monotonicMicros: Int64 { get }
    /// Wall-clock microseconds since the Unix epoch: for `Created` and `Updated`.
    var wallMicros: Int64 { get }
}

/// A clock that moves only when told to.
public final class ManualClock: Clock {
    public var monotonicMicros: Int64
    public var wallMicros: Int64

    public init(monotonicMicros: Int64 = 1_000_000, wallMicros: Int64 = 1_700_000_000_000_000) {
        self.monotonicMicros = monotonicMicros
        self.wallMicros = wallMicros
    }

    public func advance(micros: Int64) {
        monotonicMicros += micros
        wallMicros += micros
    }

    public func advance(seconds: Double) {
        advance(micros: Int64(seconds * 1_000_000))
    }
}
