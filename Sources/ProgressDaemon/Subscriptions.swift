import ProgressBus
import ProgressModel
import ProgressCore
import ProgressPolicies

/// One subscriber's view: its locale, pace, tasks and signals. Each subscription is an
/// object of its own, so the subscriber's match rule can name it and other clients'
/// subscriptions never reach it (the signals are unicast anyway).
final class Subscription {
    let path: String
    /// The connection that subscribed; only it may unsubscribe, and its departure ends it.
    let owner: ClientID
    let options: SubscriptionOptions
    let texts: TaskDescribing
    var policy: AnnouncementPolicy
    var coalescer: SignalCoalescer
    var budget: AnnouncementBudget
    /// What waits for the subscriber (SubscriberPacing), merged per task: the properties
    /// to send as Changed, or that the task is gone.
    var backlog: [TaskName: Pending] = [:]
    enum Pending { case changed(TaskProperties), removed }
    /// Whether the overall is news to a subscriber that asked for "overall-steps": the
    /// shape is the summary without its fraction (its state and counts).
    var overall: OverallStepFilter<TaskSummary>?
    /// Its object on the bus, which has no methods: only the signals its subscriber receives.
    var object: ExportedObject?

    init(path: String, owner: ClientID, options: SubscriptionOptions, texts: TaskDescribing) {
        self.path = path
        self.owner = owner
        self.options = options
        self.texts = texts
        policy = AnnouncementPolicy(
            intervalMicros: options.intervalMicros, minimumPercentStep: options.minimumPercentStep)
        coalescer = SignalCoalescer(intervalMicros: options.intervalMicros)
        budget = AnnouncementBudget(intervalMicros: options.announcementIntervalMicros)
    }
}

/// Every subscription, each charged in the daemon's ledger of caps to its owner's process
/// (host) or sandboxed app: 64 connections of one process share one allowance.
final class SubscriptionRegistry {
    static let basePath = BusNames.managerPath + "/subscriptions"
    private(set) var byPath: [String: Subscription] = [:]
    private var nextNumber: UInt64 = 1
    private let caps: CapLedger

    init(caps: CapLedger) {
        self.caps = caps
    }

    var isEmpty: Bool { byPath.isEmpty }
    var all: Dictionary<String, Subscription>.Values { byPath.values }

    func add(
        owner: ClientID, options: SubscriptionOptions, texts: TaskDescribing
    ) throws(ProgressError) -> Subscription {
        try caps.charge(.subscription, to: owner.chargeKey)
        let subscription = Subscription(
            path: "\(Self.basePath)/\(nextNumber)", owner: owner, options: options, texts: texts)
        nextNumber += 1
        byPath[subscription.path] = subscription
        return subscription
    }

    func remove(path: String, caller: ClientID) throws(ProgressError) -> Subscription {
        guard let subscription = byPath[path] else {
            throw .invalidValue("there is no subscription at '\(path)'")
        }
        guard subscription.owner == caller else {
            throw .notAllowed("the subscription at '\(path)' belongs to another connection")
        }
        return forget(subscription)
    }

    /// The subscriptions of a connection that left the bus.
    func connectionClosed(_ owner: ClientID) -> [Subscription] {
        byPath.values.filter { $0.owner == owner }.map(forget)
    }

    private func forget(_ subscription: Subscription) -> Subscription {
        byPath[subscription.path] = nil
        caps.release(.subscription, from: subscription.owner.chargeKey)
        return subscription
    }
}
