/// Decides when a task's PropertiesChanged goes out, so that a task updated thousands of
/// times a second costs at most `maxSignalsPerSecond` signals, and the last value is never lost.
///
/// - A change arriving at least one interval after the task's last signal goes out at once.
/// - A change arriving sooner is held; held properties go out together when the interval is up
///   (the trailing edge), carrying the values current at that moment.
/// - An immediate change (state, determinate/indeterminate) goes out at once, together with
///   anything held, so signals stay in order.
/// - Before the daemon answers a read (Get, GetAll, GetManagedObjects, Snapshot) it flushes
///   what is held, so that no reply overtakes a signal about an older value.
public struct SignalCoalescer: Sendable {
    public let intervalMicros: Int64
    private var lastSignal: [TaskName: Int64] = [:]
    private var held: [TaskName: TaskProperties] = [:]

    public init(maxSignalsPerSecond: Int) {
        self.init(intervalMicros: 1_000_000 / Int64(max(1, maxSignalsPerSecond)))
    }

    public init(intervalMicros: Int64) {
        self.intervalMicros = max(1, intervalMicros)
    }

    public enum Decision: Equatable, Sendable {
        /// Signal these properties now.
        case signal(TaskProperties)
        /// Held; the earliest they go out is `until` (monotonic microseconds).
        case hold(until: Int64)
        /// Nothing to signal (no visible change, or no PropertiesChanged for this kind).
        case none
    }

    public mutating func record(_ change: TaskChange, now: Int64) -> Decision {
        switch change.kind {
        case .removed:
            lastSignal[change.name] = nil
            held[change.name] = nil
            return .none
        case .created:
            // InterfacesAdded carries every property: it counts as the task's first signal.
            lastSignal[change.name] = now
            held[change.name] = nil
            return .none
        case .updated:
            if change.properties.isEmpty { return .none }
            let pending = held[change.name] ?? []
            guard let last = lastSignal[change.name], !change.isImmediate, now - last < intervalMicros else {
                held[change.name] = nil
                lastSignal[change.name] = now
                return .signal(pending.union(change.properties))
            }
            held[change.name] = pending.union(change.properties)
            return .hold(until: last + intervalMicros)
        }
    }

    public var hasHeld: Bool { !held.isEmpty }

    /// When the earliest held signal falls due.
    public var nextDeadline: Int64? {
        held.keys.lazy.map { (self.lastSignal[$0] ?? 0) + self.intervalMicros }.min()
    }

    /// Takes the held signals whose interval is up.
    public mutating func takeDue(now: Int64) -> [(name: TaskName, properties: TaskProperties)] {
        var due: [(name: TaskName, properties: TaskProperties)] = []
        for (name, properties) in held where lastSignal[name].map({ now - $0 >= intervalMicros }) ?? true {
            due.append((name, properties))
        }
        for entry in due {
            held[entry.name] = nil
            lastSignal[entry.name] = now
        }
        return due
    }

    /// Takes what is held for one task, ahead of its interval.
    public mutating func flush(_ name: TaskName, now: Int64) -> TaskProperties? {
        guard let properties = held.removeValue(forKey: name) else { return nil }
        lastSignal[name] = now
        return properties
    }

    /// Takes everything held, ahead of its interval.
    public mutating func flushAll(now: Int64) -> [(name: TaskName, properties: TaskProperties)] {
        let all = held.map { (name: $0.key, properties: $0.value) }
        held.removeAll()
        for entry in all { lastSignal[entry.name] = now }
        return all
    }
}
