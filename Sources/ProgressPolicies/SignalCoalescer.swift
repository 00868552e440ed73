import ProgressModel

/// Decides when a task's PropertiesChanged goes out, so that a task updated thousands of
/// times a second costs at most `maxSignalsPerSecond` signals, and the last value is never lost.
///
/// - A change arriving at least one interval after the task's last signal goes out at once.
/// - A change arriving sooner is held; held properties go out together when the interval is up
///   (the trailing edge), carrying the values current at that moment. A change of a task
///   with something held joins it, and goes out when it does (the deadline set stands).
/// - An immediate change (state, determinate/indeterminate) goes out at once, together with
///   anything held, so signals stay in order.
/// - Before the daemon answers a read (Get, GetAll, GetManagedObjects, Snapshot) it flushes
///   what is held, so that no reply overtakes a signal about an older value.
///
/// The rules are the same for any object with properties (the manager's TaskCount and
/// Overall too), so the coalescer is generic over what it keys and holds.
public struct Coalescer<Key: Hashable & Sendable, Properties: SetAlgebra & Sendable>: Sendable {
    public let intervalMicros: Int64
    /// When each key last signalled. An entry at least one interval old means what no entry
    /// means (the next change goes out at once), so old entries are dropped whenever they
    /// could outnumber the recent ones: an idle task costs nothing here, and a burst of new
    /// tasks at most twice the entries of one interval.
    private var lastSignal: [Key: Int64] = [:]
    private var pruneAtCount = Coalescer.fewestEntriesPruned
    private var held: [Key: Properties] = [:]
    /// Below this many entries pruning would cost more than it saves.
    static var fewestEntriesPruned: Int { 1_024 }

    public init(maxSignalsPerSecond: Int) {
        self.init(intervalMicros: 1_000_000 / Int64(max(1, maxSignalsPerSecond)))
    }

    public init(intervalMicros: Int64) {
        self.intervalMicros = max(1, intervalMicros)
    }

    public enum Decision: Sendable {
        /// Signal these properties now.
        case signal(Properties)
        /// Held; the earliest they go out is `until` (monotonic microseconds).
        case hold(until: Int64)
        /// Joined what was already held for the key: the deadline given for that stands.
        case alsoHeld
        /// Nothing to signal (no visible change, or no PropertiesChanged for this kind).
        case none
    }

    /// A change of `properties` of `key`; `immediate` ones are never held.
    public mutating func record(_ key: Key, _ properties: Properties, immediate: Bool, now: Int64) -> Decision {
        if properties.isEmpty { return .none }
        // Each lookup hashes the key. A task updated many times an interval has something
        // held at nearly every change: that change costs one lookup and no timer.
        if !immediate, let entry = held.index(forKey: key) {
            held.values[entry].formUnion(properties)
            return .alsoHeld
        }
        guard let last = lastSignal[key], !immediate, now - last < intervalMicros else {
            let pending = held.removeValue(forKey: key) ?? Properties()
            signalled(key, now: now)
            return .signal(pending.union(properties))
        }
        held[key] = properties
        return .hold(until: last + intervalMicros)
    }

    /// The object went: nothing is held for it, and a new one of the same key starts afresh.
    public mutating func forget(_ key: Key) {
        lastSignal[key] = nil
        held[key] = nil
    }

    /// A signal carrying every property went out by other means (InterfacesAdded).
    public mutating func markSent(_ key: Key, now: Int64) {
        held[key] = nil
        signalled(key, now: now)
    }

    private mutating func signalled(_ key: Key, now: Int64) {
        lastSignal[key] = now
        guard lastSignal.count >= pruneAtCount else { return }
        // A new dictionary of what is left: removing entries one by one keeps the capacity.
        lastSignal = lastSignal.filter { held[$0.key] != nil || now - $0.value < intervalMicros }
        pruneAtCount = max(Self.fewestEntriesPruned, 2 * lastSignal.count)
    }

    /// How many keys have a recent signal on record (for tests of the pruning).
    var keysRemembered: Int { lastSignal.count }

    public var hasHeld: Bool { !held.isEmpty }

    /// When the earliest held signal falls due.
    public var nextDeadline: Int64? {
        held.keys.lazy.map { (self.lastSignal[$0] ?? 0) + self.intervalMicros }.min()
    }

    /// Takes the held signals whose interval is up.
    public mutating func takeDue(now: Int64) -> [(name: Key, properties: Properties)] {
        var due: [(name: Key, properties: Properties)] = []
        for (name, properties) in held where lastSignal[name].map({ now - $0 >= intervalMicros }) ?? true {
            due.append((name, properties))
        }
        for entry in due {
            held[entry.name] = nil
            signalled(entry.name, now: now)
        }
        if held.isEmpty { held = [:] }  // gives back the capacity of a burst
        return due
    }

    /// Takes what is held for one task, ahead of its interval.
    public mutating func flush(_ name: Key, now: Int64) -> Properties? {
        guard let properties = held.removeValue(forKey: name) else { return nil }
        signalled(name, now: now)
        return properties
    }

    /// Takes everything held, ahead of its interval.
    public mutating func flushAll(now: Int64) -> [(name: Key, properties: Properties)] {
        let all = held.map { (name: $0.key, properties: $0.value) }
        held.removeAll()
        for entry in all { signalled(entry.name, now: now) }
        return all
    }
}

extension Coalescer.Decision: Equatable where Properties: Equatable {}

/// The coalescer of task PropertiesChanged signals.
public typealias SignalCoalescer = Coalescer<TaskName, TaskProperties>

extension Coalescer where Key == TaskName, Properties == TaskProperties {
    public mutating func record(_ change: TaskChange, now: Int64) -> Decision {
        switch change.kind {
        case .removed:
            forget(change.name)
            return .none
        case .created:
            // InterfacesAdded carries every property: it counts as the task's first signal.
            markSent(change.name, now: now)
            return .none
        case .updated:
            return record(change.name, change.properties, immediate: change.isImmediate, now: now)
        }
    }
}
