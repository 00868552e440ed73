import ProgressModel

/// A ManualClock that also runs timers: time moves only when told to, and what comes due
/// runs then, in deadline order, with the clock reading each deadline; a test that advances
/// ten seconds takes microseconds.
public final class ManualTimerClock: TimerClock {
    public private(set) var monotonicMicros: Int64
    public private(set) var wallMicros: Int64
    private var timers: [(id: Int, deadline: Int64, action: () -> Void)] = []
    private var nextId = 1

    public init(monotonicMicros: Int64 = 1_000_000, wallMicros: Int64 = 1_700_000_000_000_000) {
        self.monotonicMicros = monotonicMicros
        self.wallMicros = wallMicros
    }

    public func addTimer(at deadline: Int64, _ action: @escaping () -> Void) -> Int {
        defer { nextId += 1 }
        timers.append((nextId, deadline, action))
        return nextId
    }

    public func removeTimer(_ id: Int) { timers.removeAll { $0.id == id } }

    /// Moves time on by `micros`, running each timer that comes due on the way at its
    /// deadline (in order of deadline, then of arming), timers they arm included.
    public func advance(micros: Int64) {
        let end = monotonicMicros + micros
        while let next = timers.enumerated().filter({ $0.element.deadline <= end })
            .min(by: { ($0.element.deadline, $0.offset) < ($1.element.deadline, $1.offset) }) {
            timers.remove(at: next.offset)
            move(to: max(monotonicMicros, next.element.deadline))
            next.element.action()
        }
        move(to: end)
    }

    public func advance(seconds: Double) { advance(micros: Int64(seconds * 1_000_000)) }

    private func move(to monotonic: Int64) {
        wallMicros += monotonic - monotonicMicros
        monotonicMicros = monotonic
    }
}
