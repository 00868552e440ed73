import ProgressModel

/// What an input can make a client hold: each kind has a cap per identity (a host process,
/// a sandboxed app) and, where it costs every client, one for the whole daemon.
public enum CappedResource: String, Sendable, CaseIterable {
    /// A task it started (Progress1 Start, a KDE view's job, a LauncherEntry bar).
    case task
    /// A Progress1 subscription.
    case subscription
    /// A live KDE job view (org.kde.JobViewServer.requestView).
    case jobView
    /// An application a LauncherEntry sender reports (kept from its first Update).
    case launcherEntry

    /// How a refusal counts what is held: "has started 10 tasks", "holds 16 subscriptions".
    var holding: (verb: String, noun: String) {
        switch self {
        case .task: ("has started", "tasks")
        case .subscription: ("holds", "subscriptions")
        case .jobView: ("holds", "live KDE job views")
        case .launcherEntry: ("reports", "LauncherEntry applications")
        }
    }
}

/// The one ledger of caps: every resource any input creates is charged here to the identity
/// behind it (`ChargeKey`: a host process, however many connections it opens; a sandboxed
/// app, however many processes it runs), so that no one process or app can take what the
/// others need, whichever door it comes in by. The limits and their reasons are in `Limits`.
///
/// A charge lasts as long as its resource, not its connection: a lease task outlives the
/// connection that started it and still counts. An identity that holds nothing has no entry.
public final class CapLedger {
    private let limits: Limits
    private var held: [CappedResource: [ChargeKey: Int]] = [:]
    private var totals: [CappedResource: Int] = [:]

    public init(limits: Limits) {
        self.limits = limits
    }

    /// The most one identity may hold.
    public func limitPerCaller(_ resource: CappedResource) -> Int {
        switch resource {
        case .task: limits.maxTasksPerCaller
        case .subscription: limits.maxSubscriptionsPerCaller
        case .jobView: limits.maxJobViewsPerCaller
        case .launcherEntry: limits.maxLauncherEntriesPerCaller
        }
    }

    /// The most all identities together may hold, where there is such a cap. Tasks have
    /// theirs in the store, which counts restored tasks too (they are charged to no one).
    public func limitInAll(_ resource: CappedResource) -> Int? {
        switch resource {
        case .subscription: limits.maxSubscriptions
        case .task, .jobView, .launcherEntry: nil
        }
    }

    public func held(_ resource: CappedResource, by key: ChargeKey) -> Int { held[resource]?[key] ?? 0 }
    public func total(_ resource: CappedResource) -> Int { totals[resource] ?? 0 }

    /// Refuses with LimitExceeded, naming the identity and the cap, if `key` may not hold one more.
    public func check(_ resource: CappedResource, for key: ChargeKey) throws(ProgressError) {
        if let all = limitInAll(resource), total(resource) >= all {
            throw .limitExceeded("the daemon holds \(total(resource)) \(resource.holding.noun); the limit is \(all)")
        }
        let count = held(resource, by: key)
        let limit = limitPerCaller(resource)
        if count >= limit {
            throw .limitExceeded(
                "\(key) \(resource.holding.verb) \(count) \(resource.holding.noun); "
                    + "the limit per process (a sandboxed app is one) is \(limit)")
        }
    }

    /// Checks, then counts one more for `key`.
    public func charge(_ resource: CappedResource, to key: ChargeKey) throws(ProgressError) {
        try check(resource, for: key)
        held[resource, default: [:]][key, default: 0] += 1
        totals[resource, default: 0] += 1
    }

    /// Counts one more without a check: the caller checked before it changed anything.
    func chargeChecked(_ resource: CappedResource, to key: ChargeKey) {
        held[resource, default: [:]][key, default: 0] += 1
        totals[resource, default: 0] += 1
    }

    /// One fewer for `key`; the entry goes when it holds nothing.
    public func release(_ resource: CappedResource, from key: ChargeKey) {
        guard let count = held[resource]?[key] else { return }
        held[resource]?[key] = count > 1 ? count - 1 : nil
        totals[resource, default: 1] -= 1
    }
}
