import ProgressModel

/// Decides when changed values (not transitions, which are written at once) go to disk:
/// at most once a second, and never more than a second after they changed. Pure policy;
/// ProgressDaemon's JournalRecorder owns the timer and the writing.
public struct SaveThrottle: Sendable {
    public static let intervalMicros: Int64 = 1_000_000
    private var dirty = Set<TaskName>()
    /// The task marked last, which is in `dirty`: a job's flood of updates marks one task
    /// again and again, and a comparison of its name spares the set's hashing.
    private var lastMarked: TaskName?
    private var lastSave: Int64?
    private var armed = false

    public init() {}

    /// Notes a task whose values changed. Returns when to save, if no save is pending yet.
    public mutating func markDirty(_ name: TaskName, now: Int64) -> Int64? {
        if armed, name == lastMarked { return nil }
        dirty.insert(name)
        lastMarked = name
        guard !armed else { return nil }
        armed = true
        return max(now, (lastSave ?? .min / 2) + Self.intervalMicros)
    }

    /// The task was written (or removed) with a transition: nothing is owed for it.
    public mutating func forget(_ name: TaskName) {
        dirty.remove(name)
        if name == lastMarked { lastMarked = nil }
    }

    /// When the pending save is due, if one is.
    public var dueTime: Int64? {
        armed ? (lastSave ?? .min / 2) + Self.intervalMicros : nil
    }

    /// The tasks to write now, in name order, if the interval is up; nil if it is not.
    public mutating func takeDue(now: Int64) -> [TaskName]? {
        guard armed, now >= (lastSave ?? .min / 2) + Self.intervalMicros else { return nil }
        armed = false
        lastSave = now
        defer { forgetAll() }
        return dirty.sorted { $0.text < $1.text }
    }

    private mutating func forgetAll() {
        dirty.removeAll()
        lastMarked = nil
    }

    /// Everything owed, at once (a clean stop).
    public mutating func takeAll(now: Int64) -> [TaskName] {
        armed = false
        lastSave = now
        defer { forgetAll() }
        return dirty.sorted { $0.text < $1.text }
    }
}
