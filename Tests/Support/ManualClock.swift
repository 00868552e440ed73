import ProgressModel

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
