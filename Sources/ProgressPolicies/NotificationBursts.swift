import ProgressModel

/// Outcome notifications grouped per app, so that a burst of outcomes is one notification
/// and not one each: 300 tasks failing within a tenth of a second gave 300 critical
/// notifications (issue 22). The first outcome of an app is notified alone, at once; each
/// further outcome of that app within `windowMicros` of the last one joins a burst, which
/// one notification sums up ("12 tasks failed", naming the first few), replacing the first
/// in place. A burst ends after a quiet window; the next outcome starts afresh.
///
/// Bounds: at most `maxApps` apps have a burst of their own at a time, so many app ids
/// (which a host process may choose freely) still give a bounded number of notifications:
/// outcomes of further apps share one burst without an app. A burst keeps at most
/// `maxTitlesNamed` titles of each kind; the counts count everything, so no outcome is
/// dropped silently (and the tasks themselves stay in the store, for `progressctl list`).
/// Pure bookkeeping with the caller's clock, no I/O.
public struct NotificationBursts: Sendable {
    /// Outcomes less than this apart are one burst: long enough to gather what one job
    /// (a backup of many folders, a sync that loses its network) ends together, short
    /// enough that unrelated outcomes later are told on their own.
    public static let defaultWindowMicros: Int64 = 5_000_000
    /// Apps with a burst of their own at a time; a ninth shares the burst without an app.
    public static let maxApps = 8
    /// Titles a summary names, of failures and of finishes each: a line a person reads.
    public static let maxTitlesNamed = 5

    /// How an outcome is to be notified: alone (the first of its app's burst), or by
    /// updating the app's summary.
    public enum Placement: Sendable, Equatable {
        case alone(app: String)
        case summary(app: String)
    }

    public let windowMicros: Int64
    private var bursts: [String: NotificationBurst] = [:]

    public init(windowMicros: Int64 = defaultWindowMicros) {
        self.windowMicros = max(0, windowMicros)
    }

    /// Counts one outcome (a failure, or a finish worth telling) of a task of `appId`.
    public mutating func add(failed: Bool, title: String, appId: String, now: Int64) -> Placement {
        expire(now: now)
        let app = bursts[appId] != nil || bursts.count < Self.maxApps ? appId : ""
        var burst = bursts[app] ?? NotificationBurst(app: app, last: now)
        burst.last = now
        if failed {
            burst.failed += 1
            if burst.failedTitles.count < Self.maxTitlesNamed { burst.failedTitles.append(title) }
        } else {
            burst.finished += 1
            if burst.finishedTitles.count < Self.maxTitlesNamed { burst.finishedTitles.append(title) }
        }
        bursts[app] = burst
        return burst.count == 1 ? .alone(app: app) : .summary(app: app)
    }

    /// The burst of `app` while it is open.
    public func burst(_ app: String) -> NotificationBurst? { bursts[app] }

    /// Ends the bursts quiet for longer than the window.
    public mutating func expire(now: Int64) {
        bursts = bursts.filter { now - $0.value.last <= windowMicros }
    }
}
