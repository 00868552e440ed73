import ProgressModel

/// How fast a task's value moves (Rate and SecondsRemaining) and how often its job calls
/// (UpdatesFrequently): both counted as the job's calls come.
extension TaskStore {
    /// Feeds the rate estimator when the task's value moved, and clears the estimate
    /// whenever there is nothing to estimate (paused, stalled, indeterminate, ended).
    func updateEstimate(_ task: inout ProgressTask, before: ProgressTask) {
        let countsUnits = task.total > 0
        guard task.state == .running, !task.indeterminate, !task.isStalled,
              countsUnits == task.estimatorCountsUnits || task.estimator.isEmpty else {
            task.estimator.reset()
            task.estimatorCountsUnits = countsUnits
            task.rate = 0
            task.secondsRemaining = -1
            return
        }
        task.estimatorCountsUnits = countsUnits
        let value = countsUnits ? Double(task.completed) : task.storedFraction
        let previous = countsUnits ? Double(before.completed) : before.storedFraction
        guard value != previous || task.estimator.isEmpty || before.state != .running || before.isStalled else {
            return
        }
        task.estimator.record(value, now: clock.monotonicMicros)
        if let rate = task.estimator.rate {
            let goal = countsUnits ? Double(task.total) : 1
            task.rate = rate
            task.secondsRemaining = Int64(((goal - value) / rate).rounded(.up))
        } else {
            task.rate = 0
            task.secondsRemaining = -1
        }
    }

    func countTowardsRate(_ task: inout ProgressTask) {
        let now = clock.monotonicMicros
        if task.rateWindowStart.map({ now - $0 >= 1_000_000 }) ?? true {
            task.rateWindowStart = now
            task.rateWindowCount = 0
        }
        task.rateWindowCount += 1
        // Once detected it stays: a client that chose to poll is not flipped back and forth.
        if task.rateWindowCount > limits.maxSignalsPerSecond { task.detectedFrequent = true }
    }
}
