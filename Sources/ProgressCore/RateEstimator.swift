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

    private struct Sample: Sendable, Equatable {
        var time: Int64
        var value: Double
    }

    /// One array, not one for times and one for values: every live task has one, so a second
    /// allocation each would show in the daemon's memory per task.
    private var samples: [Sample] = []

    public init() {}

    public var isEmpty: Bool { samples.isEmpty }

    public mutating func reset() {
        samples.removeAll()
    }

    public mutating func record(_ value: Double, now: Int64) {
        if let last = samples.last, value < last.value { reset() }
        if samples.count >= 2, now - samples[samples.count - 2].time < Self.sampleSpacingMicros {
            // Still within the spacing of the one before: the newest sample moves forward.
            samples[samples.count - 1] = Sample(time: now, value: value)
        } else {
            samples.append(Sample(time: now, value: value))
        }
        let oldest = now - Self.windowMicros
        let stale = samples.prefix { $0.time < oldest }.count + max(0, samples.count - Self.maximumSamples)
        if stale > 0 { samples.removeFirst(min(stale, samples.count)) }
    }

    /// Units (or fraction) per second, or nil when the samples do not support an estimate.
    public var rate: Double? {
        guard samples.count >= Self.minimumSamples, let first = samples.first?.time, let last = samples.last?.time,
              last - first >= Self.minimumSpanMicros else { return nil }
        let xs = samples.map { Double($0.time - first) / 1_000_000 }
        let meanX = xs.reduce(0, +) / Double(xs.count)
        let meanY = samples.reduce(0) { $0 + $1.value } / Double(samples.count)
        var covariance = 0.0
        var variance = 0.0
        for (x, y) in zip(xs, samples.map(\.value)) {
            covariance += (x - meanX) * (y - meanY)
            variance += (x - meanX) * (x - meanX)
        }
        guard variance > 0 else { return nil }
        let slope = covariance / variance
        return slope > 0 && slope.isFinite ? slope : nil
    }
}
