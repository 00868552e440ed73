import ProgressModel

/// Decides what about a task is worth saying to a person, the judgment screen readers make
/// on their side (Orca: at most every 10 seconds and only when the whole percent changed;
/// NVDA: every 10 percentage points), offered once as a service. Outcomes and the start are
/// always said; progress at most every `interval`, when the whole percent moved by at least
/// `minimumPercentStep`. One policy per listener: the daemon's broadcast, each subscription.
public struct AnnouncementPolicy: Sendable {
    public enum Event: String, Sendable {
        case started, progress, paused, stalled, finished, failed, cancelled
    }

    /// ARIA's live-region politeness: failures interrupt, everything else waits its turn.
    public enum Politeness: String, Sendable {
        case polite, assertive
    }

    public struct Announcement: Equatable, Sendable {
        public let name: TaskName
        public let event: Event
        public var politeness: Politeness { event == .failed ? .assertive : .polite }
    }

    public static let defaultIntervalMicros: Int64 = 10_000_000
    /// Kept once, not built from its literal by every update that asks.
    private static let alwaysJudged: TaskProperties = [.state, .stalled]

    public let intervalMicros: Int64
    public let minimumPercentStep: Int
    private var lastProgress: [TaskName: (time: Int64, percent: Int)] = [:]
    /// The task whose entry of `lastProgress` was written last, and its time: a job that
    /// updates one task many times a second is judged without a lookup, as SaveThrottle's
    /// `lastMarked` marks it. Every write of `lastProgress` writes this too.
    private var lastSaid: (name: TaskName, time: Int64)?

    public init(intervalMicros: Int64 = defaultIntervalMicros, minimumPercentStep: Int = 1) {
        self.intervalMicros = intervalMicros
        self.minimumPercentStep = max(1, minimumPercentStep)
    }

    /// False when `consider` would say nothing whatever the task is: an update that leaves
    /// the state and the stall as they were, of a task whose progress was said less than
    /// `interval` ago (or that is not a new value). A listener can then skip the task.
    /// Mutating, though it changes nothing, so that a policy kept in a class's property is
    /// judged where it is kept.
    public mutating func mayAnnounce(_ change: TaskChange, now: Int64) -> Bool {
        guard change.kind == .updated, !change.isRestart, change.properties.isDisjoint(with: Self.alwaysJudged) else {
            return true
        }
        guard change.properties.contains(.serial) else { return false }
        if let lastSaid, lastSaid.name == change.name { return now - lastSaid.time >= intervalMicros }
        guard let last = lastProgress[change.name] else { return true }
        return now - last.time >= intervalMicros
    }

    /// The announcement `change` deserves, if any, judged by the task as the change left it
    /// (`TaskChange.task`), never as it is now: a pause and a fail in one batch are a pause
    /// then a fail.
    public mutating func consider(_ change: TaskChange, now: Int64) -> Announcement? {
        if change.kind == .removed {
            lastProgress[change.name] = nil
            if lastSaid?.name == change.name { lastSaid = nil }
            return nil
        }
        let task = change.task
        if change.kind == .created || change.isRestart {
            said(change.name, percent: task.wholePercent ?? 0, now: now)
            return Announcement(name: change.name, event: .started)
        }
        if change.properties.contains(.state) {
            switch task.state {
            case .finished: return Announcement(name: change.name, event: .finished)
            case .failed: return Announcement(name: change.name, event: .failed)
            case .cancelled: return Announcement(name: change.name, event: .cancelled)
            case .paused: return Announcement(name: change.name, event: .paused)
            case .running: break
            }
        }
        if change.properties.contains(.stalled) && task.isStalled && task.isLive {
            return Announcement(name: change.name, event: .stalled)
        }
        // Compared with what was last said, not with the previous update: a change held back
        // by the interval is said with the next update after it.
        guard change.properties.contains(.serial), task.state == .running, let percent = task.wholePercent else {
            return nil
        }
        if let last = lastProgress[change.name] {
            guard now - last.time >= intervalMicros, abs(percent - last.percent) >= minimumPercentStep else {
                return nil
            }
        }
        said(change.name, percent: percent, now: now)
        return Announcement(name: change.name, event: .progress)
    }

    private mutating func said(_ name: TaskName, percent: Int, now: Int64) {
        lastProgress[name] = (now, percent)
        lastSaid = (name, now)
    }
}
