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

    /// The samples before the newest, at least `sampleSpacingMicros` apart: one array, not
    /// one for times and one for values, since every live task has one and a second
    /// allocation each would show in the daemon's memory per task.
    private var settled: [Sample] = []
    /// The newest sample, kept apart from the array because every update moves it: written
    /// into an array that the task's previous value still shares (the store keeps one for
    /// what changed), it would copy the whole array at each call. Its time is `Int64.min`
    /// when there is no sample at all.
    private var newestTime = Int64.min
    private var newestValue = 0.0

    public init() {}

    public var isEmpty: Bool { newestTime == .min }

    private var count: Int { isEmpty ? 0 : settled.count + 1 }

    /// The samples in time order: the settled ones, then the newest.
    private func sample(_ index: Int) -> Sample {
        index < settled.count ? settled[index] : Sample(time: newestTime, value: newestValue)
    }

    public mutating func reset() {
        settled.removeAll()
        newestTime = .min
        newestValue = 0
    }

    public mutating func record(_ value: Double, now: Int64) {
        if !isEmpty, value < newestValue { reset() }
        // The newest sample settles once the spacing from the one before it has passed;
        // until then it moves forward.
        if !isEmpty, settled.last.map({ now - $0.time >= Self.sampleSpacingMicros }) ?? true {
            settled.append(Sample(time: newestTime, value: newestValue))
        }
        newestTime = now
        newestValue = value
        let oldest = now - Self.windowMicros
        let stale = settled.prefix { $0.time < oldest }.count + max(0, count - Self.maximumSamples)
        guard stale > 0 else { return }
        let fromSettled = min(stale, settled.count)
        settled.removeFirst(fromSettled)
        if stale > fromSettled { reset() }
    }

    /// The least-squares slope, in value per second, read from the samples where they are
    /// (no array of them is built: this runs at every update).
    public var rate: Double? {
        let count = count
        guard count >= Self.minimumSamples else { return nil }
        let first = sample(0).time
        guard newestTime - first >= Self.minimumSpanMicros else { return nil }
        func x(_ index: Int) -> Double { Double(sample(index).time - first) / 1_000_000 }
        var sumX = 0.0
        var sumY = 0.0
        for index in 0..<count {
            sumX += x(index)
            sumY += sample(index).value
        }
        let meanX = sumX / Double(count)
        let meanY = sumY / Double(count)
        var covariance = 0.0
        var variance = 0.0
        for index in 0..<count {
            let dx = x(index) - meanX
            covariance += dx * (sample(index).value - meanY)
            variance += dx * dx
        }
        guard variance > 0 else { return nil }
        let slope = covariance / variance
        return slope > 0 && slope.isFinite ? slope : nil
    }
}
