/// Estimates how fast a task progresses from its recent updates: the least-squares slope
/// of its value over the last minute of samples. It stays silent until it has several
/// samples over a few seconds (two points are no estimate), and the store resets it when
/// the task pauses, stalls, turns indeterminate or goes backwards, so that a pause never
/// drags the rate down and the estimate recovers soon after the job resumes.
public struct RateEstimator: Sendable, Equatable {
    /// UDisks waits for 5 samples; so do we.
    public static let minimumSamples = 5
    /// Samples closer than this are merged, so a burst of updates counts once.
    public static let sampleSpacingMicros: Int64 = 500_000
    /// Less than this between the first and last sample says nothing about a trend.
    public static let minimumSpanMicros: Int64 = 3_000_000
    /// Older samples no longer describe the current speed.
    public static let windowMicros: Int64 = 60_000_000
    static let maximumSamples = 121

    private var times: [Int64] = []
    private var values: [Double] = []

    public init() {}

    public var isEmpty: Bool { times.isEmpty }

    public mutating func reset() {
        times.removeAll()
        values.removeAll()
    }

    public mutating func record(_ value: Double, now: Int64) {
        if let last = values.last, value < last { reset() }
        if times.count >= 2, now - times[times.count - 2] < Self.sampleSpacingMicros {
            // Still within the spacing of the one before: the newest sample moves forward.
            times[times.count - 1] = now
            values[values.count - 1] = value
        } else {
            times.append(now)
            values.append(value)
        }
        let oldest = now - Self.windowMicros
        let stale = times.prefix { $0 < oldest }.count + max(0, times.count - Self.maximumSamples)
        if stale > 0 {
            times.removeFirst(min(stale, times.count))
            values.removeFirst(min(stale, values.count))
        }
    }

    /// Units (or fraction) per second, or nil when the samples do not support an estimate.
    public var rate: Double? {
        guard times.count >= Self.minimumSamples, let first = times.first, let last = times.last,
              last - first >= Self.minimumSpanMicros else { return nil }
        let xs = times.map { Double($0 - first) / 1_000_000 }
        let meanX = xs.reduce(0, +) / Double(xs.count)
        let meanY = values.reduce(0, +) / Double(values.count)
        var covariance = 0.0
        var variance = 0.0
        for (x, y) in zip(xs, values) {
            covariance += (x - meanX) * (y - meanY)
            variance += (x - meanX) * (x - meanX)
        }
        guard variance > 0 else { return nil }
        let slope = covariance / variance
        return slope > 0 && slope.isFinite ? slope : nil
    }
}
