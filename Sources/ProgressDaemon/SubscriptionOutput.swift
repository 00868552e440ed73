import CGLib
import ProgressBus
import ProgressModel
import ProgressCore
import ProgressPolicies

/// Subscriptions: each subscriber's own announcements and Changed/Removed signals, in its
/// locale and at its pace, sent to it alone. Subscribe and Unsubscribe come through here,
/// and a subscriber that leaves the bus loses its subscriptions.
final class SubscriptionOutput: ChangeOutput {
    private let context: DaemonContext
    private let variants: TaskVariants
    private let interface: ExportedInterface
    private let registry: SubscriptionRegistry
    private lazy var timer = MainLoopTimer(clock: context.clock) { [unowned self] in sendDue() }
    private var pacing: SubscriberPacing
    private let pinger: PeerPing
    /// When the overall is looked at for "overall-steps" subscribers: after a change, at
    /// most once a signal interval, the first change after a quiet one at once.
    private var overallLooks: Coalescer<OverallLook, OverallLook>
    struct OverallLook: OptionSet, Hashable, Sendable {
        let rawValue: UInt8
        static let due = OverallLook(rawValue: 1)
    }

    init(
        context: DaemonContext, variants: TaskVariants, interface: UnsafeMutablePointer<GDBusInterfaceInfo>
    ) throws(DaemonError) {
        self.context = context
        self.variants = variants
        self.interface = try ExportedInterface(
            interface, methods: MethodTable(interface: BusNames.subscriptionInterface, []))
        registry = SubscriptionRegistry(caps: context.caps)
        pacing = SubscriberPacing(
            signalsPerSecond: context.limits.maxSubscriberSignalsPerSecond,
            answerMicros: context.limits.subscriberAnswerMicros)
        pinger = PeerPing(connection: context.connection)
        overallLooks = Coalescer(intervalMicros: context.limits.signalIntervalMicros)
    }

    /// A subscriber that leaves the bus loses its subscriptions.
    func clientLeft(_ client: ClientID) {
        for subscription in registry.connectionClosed(client) { unregister(subscription) }
        pacing.forget(client)
        context.stream.interestChanged(self)
    }

    /// With no subscription, no value matters: every batch would find nobody to tell.
    var interest: TaskProperties { registry.isEmpty ? [] : .all }

    /// Subscribe: the path of a new subscription object, which has no methods, only the
    /// signals its subscriber receives.
    func subscribe(_ options: SubscriptionOptions, by owner: ClientID) throws(ProgressError) -> String {
        let texts = try context.texts(forLocale: options.locale)
        let subscription = try registry.add(owner: owner, options: options, texts: texts)
        if !options.overallSteps.isEmpty {
            subscription.overall = OverallStepFilter(resolutions: options.overallSteps)
            // The overall as it is goes out first, after Subscribe's reply (sendDue).
            timer.arm(at: context.clock.monotonicMicros)
        }
        do throws(DaemonError) {
            subscription.object = try ExportedObject(on: context.connection, path: subscription.path, [interface])
        } catch {
            // Its path is new, so nothing else serves it; its signals are unicast, and go out without the object.
            Log.warning(error.description)
        }
        context.stream.interestChanged(self)
        return subscription.path
    }

    func unsubscribe(path: String, by caller: ClientID) throws(ProgressError) {
        unregister(try registry.remove(path: path, caller: caller))
        context.stream.interestChanged(self)
    }

    private func unregister(_ subscription: Subscription) {
        subscription.object?.end()
        subscription.object = nil
    }

    /// Nothing is sent once the daemon stops.
    func stop() { timer.cancel() }

    func publish(_ batch: ChangeBatch) {
        guard !registry.isEmpty else { return }
        let now = context.clock.monotonicMicros
        for change in batch.changes { tell(change, now: now) }
        overallMayHaveChanged(now: now)
    }

    /// A batch may have moved the overall: it is looked at now, or once the signal interval
    /// since the last look is up (a read each batch would apply the values the front door
    /// holds back, and a thousand updates a second would be a thousand reads).
    private func overallMayHaveChanged(now: Int64) {
        guard registry.all.contains(where: { $0.overall != nil }) else { return }
        switch overallLooks.record(.due, .due, immediate: false, now: now) {
        case .signal: tellOverall(now: now)
        case .hold(let until): timer.arm(at: until)
        case .alsoHeld, .none: break
        }
    }

    /// The overall, read once, to each subscriber to whom it is news (OverallStepFilter).
    private func tellOverall(now: Int64) {
        let summary = context.read(.tasks([])) { $0.summary() }
        var shape = summary
        shape.fraction = 0
        for subscription in registry.all {
            // A subscriber that stopped reading gets nothing until it answers its ping.
            guard var filter = subscription.overall, !pacing.isSilent(subscription.owner, now: now) else { continue }
            if filter.isNews(filter.look(fraction: summary.fraction, shape: shape)) {
                send(to: subscription, Progress1Signals.subscriptionOverall, Variant.tuple([variants.summary(summary)]))
            }
            subscription.overall = filter
        }
    }

    private func tell(_ change: TaskChange, now: Int64) {
        for subscription in registry.all where subscription.options.covers(change.name) {
            if subscription.options.announcements, change.kind != .removed,
               let announcement = subscription.policy.consider(change, now: now) {
                if let spoken = subscription.budget.offer(announcement, task: change.task, now: now) {
                    send(
                        to: subscription, Progress1Signals.subscriptionAnnouncement,
                        TaskVariants.announcement(spoken, texts: subscription.texts))
                }
                if let deadline = subscription.budget.nextDeadline { timer.arm(at: deadline) }
            } else if change.kind == .removed {
                _ = subscription.policy.consider(change, now: now)
                subscription.budget.removed(change.name)
            }
            guard subscription.options.changes else { continue }
            switch (change.kind, subscription.coalescer.record(change, now: now)) {
            case (.removed, _):
                if subscription.backlog.isEmpty && !pacing.isSilent(subscription.owner, now: now) {
                    send(to: subscription, Progress1Signals.removed, Variant.tuple([Variant.string(change.name.text)]))
                } else {
                    subscription.backlog[change.name] = .removed
                }
            case (.created, _):
                if case .removed? = subscription.backlog[change.name] { subscription.backlog[change.name] = nil }
                sendChanged(change.name, .all, to: subscription, as: change.task)
            case (_, .signal(let properties)):
                sendChanged(change.name, properties, to: subscription, as: change.task)
            case (_, .hold(let until)):
                timer.arm(at: until)
            case (_, .alsoHeld), (_, .none):
                break
            }
        }
    }

    private func sendDue() {
        let now = context.clock.monotonicMicros
        for subscription in registry.all {
            sendBacklog(of: subscription, now: now)
            for entry in subscription.coalescer.takeDue(now: now) {
                sendChanged(entry.name, entry.properties, to: subscription)
            }
            if let next = subscription.coalescer.nextDeadline { timer.arm(at: next) }
            if let spoken = subscription.budget.takeDue(now: now) {
                send(
                    to: subscription, Progress1Signals.subscriptionAnnouncement,
                    TaskVariants.announcement(spoken, texts: subscription.texts))
            }
            if let next = subscription.budget.nextDeadline { timer.arm(at: next) }
        }
        if !overallLooks.takeDue(now: now).isEmpty || registry.all.contains(where: { $0.overall?.sent == nil }) {
            tellOverall(now: now)
        }
        if let next = overallLooks.nextDeadline { timer.arm(at: next) }
    }

    /// A Changed goes out if the subscriber's pacing allows, with the values of `task` (what
    /// the change being published left), else waits merged with what already waits for that
    /// task (the values are read when it goes, so the last one is sent).
    private func sendChanged(
        _ name: TaskName, _ properties: TaskProperties, to subscription: Subscription, as task: ProgressTask? = nil
    ) {
        let now = context.clock.monotonicMicros
        if case .changed(let waiting)? = subscription.backlog[name] {
            subscription.backlog[name] = .changed(waiting.union(properties))
            return
        }
        guard pacing.take(subscription.owner, now: now) else {
            subscription.backlog[name] = .changed(properties)
            scheduleBacklog(of: subscription, now: now)
            return
        }
        if pacing.shouldPing(subscription.owner, now: now) { ping(subscription.owner) }
        emitChanged(name, properties, to: subscription, as: task)
    }

    private func sendBacklog(of subscription: Subscription, now: Int64) {
        while let (name, pending) = subscription.backlog.first, pacing.take(subscription.owner, now: now) {
            subscription.backlog[name] = nil
            switch pending {
            case .changed(let properties): emitChanged(name, properties, to: subscription)
            case .removed: send(to: subscription, Progress1Signals.removed, Variant.tuple([Variant.string(name.text)]))
            }
        }
        scheduleBacklog(of: subscription, now: now)
    }

    /// A timer for the next token; a silent subscriber waits for its ping's answer instead.
    private func scheduleBacklog(of subscription: Subscription, now: Int64) {
        guard !subscription.backlog.isEmpty else { return }
        if let chance = pacing.nextChance(subscription.owner, now: now) {
            timer.arm(at: chance)
        } else if pacing.shouldPing(subscription.owner, now: now) {
            ping(subscription.owner)
        }
    }

    private func ping(_ owner: ClientID) {
        pinger.ping(owner) { [weak self] answered in
            guard let self else { return }
            let now = context.clock.monotonicMicros
            if answered {
                _ = pacing.answered(owner, now: now)
            } else {
                pacing.pingFailed(owner)
            }
            for subscription in registry.all where subscription.owner == owner && !subscription.backlog.isEmpty {
                sendBacklog(of: subscription, now: now)
            }
            if answered { tellOverall(now: now) }
        }
    }

    /// With the values `task` has, or without one (what waited), the values a read shows.
    private func emitChanged(
        _ name: TaskName, _ properties: TaskProperties, to subscription: Subscription, as task: ProgressTask? = nil
    ) {
        guard let task = task ?? context.read(.tasks([]), { $0.task(name) }) else { return }
        send(
            to: subscription, Progress1Signals.changed,
            Variant.tuple(
                [Variant.string(name.text), variants.properties(properties, of: task, texts: subscription.texts)]))
    }

    private func send(to subscription: Subscription, _ signal: InterfaceSignal, _ parameters: OpaquePointer) {
        context.signals.unicast(signal, to: subscription.owner.uniqueName, path: subscription.path, parameters)
    }
}
