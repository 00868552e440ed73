/// Labels for whole percents, in some locale. ProgressText provides one; Core only asks.
public protocol PercentLabeling {
    func label(wholePercent: Int) -> String
}

/// One progress task as the daemon keeps it.
public struct ProgressTask: Sendable {
    public let name: TaskName
    public internal(set) var title = ""
    public internal(set) var state = TaskState.running
    public internal(set) var indeterminate = false
    /// The determinate value. While indeterminate it is kept but not shown.
    public internal(set) var storedFraction = 0.0
    public internal(set) var completed: UInt64 = 0
    public internal(set) var total: UInt64 = 0
    public internal(set) var unit = ""
    public internal(set) var message = ""
    public internal(set) var appId = ""
    public internal(set) var ownerSaysFrequent = false
    public internal(set) var detectedFrequent = false
    public internal(set) var serial: UInt64 = 0
    public internal(set) var created: Int64
    public internal(set) var updated: Int64

    /// The connection charged for the task against the per-caller cap.
    var creator: String
    /// The connection that last called Start for the task.
    var starter: String
    /// The starter, once it has gone on to update the task: a long-lived job, whose
    /// disappearance fails the task. A one-shot caller (`gdbus call`) never becomes owner.
    public internal(set) var owner: String?

    /// Start of the current one-second window and the changes counted in it, to detect
    /// a task that updates faster than signals go out.
    var rateWindowStart: Int64?
    var rateWindowCount = 0

    init(name: TaskName, caller: String, wallMicros: Int64, serial: UInt64 = 0) {
        self.name = name
        creator = caller
        starter = caller
        created = wallMicros
        updated = wallMicros
        self.serial = serial
    }

    public var updatesFrequently: Bool { ownerSaysFrequent || detectedFrequent }

    /// The `Fraction` property: 0 while indeterminate, because an indeterminate task has
    /// no current value and a stale one must not be shown.
    public var fraction: Double { indeterminate ? 0 : storedFraction }

    /// The whole percent a label shows, or nil while indeterminate. Rounded down, so that
    /// 99.9 % reads 99; only a finished task reads 100.
    public var wholePercent: Int? {
        if indeterminate { return nil }
        if state == .finished { return 100 }
        // The small epsilon keeps 0.29 * 100 = 28.999… at 29.
        return min(99, Int((storedFraction * 100 + 1e-9).rounded(.down)))
    }

    public func value(of property: TaskProperty, labeling: PercentLabeling) -> PropertyValue {
        switch property {
        case .name: .string(name.text)
        case .title: .string(title)
        case .state: .string(state.rawValue)
        case .indeterminate: .bool(indeterminate)
        case .fraction: .double(fraction)
        case .completed: .uint64(completed)
        case .total: .uint64(total)
        case .unit: .string(unit)
        case .message: .string(message)
        case .appId: .string(appId)
        case .updatesFrequently: .bool(updatesFrequently)
        case .serial: .uint64(serial)
        case .created: .int64(created)
        case .updated: .int64(updated)
        case .label: .string(wholePercent.map(labeling.label(wholePercent:)) ?? "")
        }
    }

    /// The properties whose client-visible values differ from `other`'s.
    func differences(from other: ProgressTask) -> TaskProperties {
        var changed = TaskProperties()
        if title != other.title { changed.insert(.title) }
        if state != other.state { changed.insert(.state) }
        if indeterminate != other.indeterminate { changed.insert(.indeterminate) }
        if fraction != other.fraction { changed.insert(.fraction) }
        if completed != other.completed { changed.insert(.completed) }
        if total != other.total { changed.insert(.total) }
        if unit != other.unit { changed.insert(.unit) }
        if message != other.message { changed.insert(.message) }
        if appId != other.appId { changed.insert(.appId) }
        if updatesFrequently != other.updatesFrequently { changed.insert(.updatesFrequently) }
        if serial != other.serial { changed.insert(.serial) }
        if created != other.created { changed.insert(.created) }
        if updated != other.updated { changed.insert(.updated) }
        if wholePercent != other.wholePercent { changed.insert(.label) }
        return changed
    }
}
