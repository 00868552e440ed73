import CGLib
import ProgressBus
import ProgressCore

/// Subscriptions: each subscriber's own announcements and Changed/Removed signals, in its
/// locale and at its pace, sent to it alone. Subscribe and Unsubscribe come through here,
/// and a subscriber that leaves the bus loses its subscriptions.
final class SubscriptionOutput: ChangeOutput {
    private let context: DaemonContext
    private let variants: TaskVariants
    private let interface: UnsafeMutablePointer<GDBusInterfaceInfo>
    private let registry: SubscriptionRegistry
    private lazy var timer = MainLoopTimer(clock: context.clock) { [unowned self] in sendDue() }

    init(context: DaemonContext, variants: TaskVariants, interface: UnsafeMutablePointer<GDBusInterfaceInfo>) {
        self.context = context
        self.variants = variants
        self.interface = interface
        registry = SubscriptionRegistry(limits: context.limits)
        context.onClientLeft { [unowned self] client in
            for subscription in registry.connectionClosed(client) { unregister(subscription) }
        }
    }

    /// Subscribe: the path of a new subscription object, which has no methods, only the
    /// signals its subscriber receives.
    func subscribe(_ options: SubscriptionOptions, by owner: ClientID) throws(ProgressError) -> String {
        let texts = try context.texts(forLocale: options.locale)
        let subscription = try registry.add(owner: owner, options: options, texts: texts)
        subscription.registration = g_dbus_connection_register_object(
            context.connection, subscription.path, interface, nil, nil, nil, nil)
        return subscription.path
    }

    func unsubscribe(path: String, by caller: ClientID) throws(ProgressError) {
        unregister(try registry.remove(path: path, caller: caller))
    }

    private func unregister(_ subscription: Subscription) {
        if subscription.registration != 0 { g_dbus_connection_unregister_object(context.connection, subscription.registration) }
    }

    func publish(_ batch: ChangeBatch) {
        guard !registry.isEmpty else { return }
        let now = context.clock.monotonicMicros
        for change in batch.changes { tell(change, now: now) }
    }

    private func tell(_ change: TaskChange, now: Int64) {
        let task = context.store.task(change.name)
        for subscription in registry.all where subscription.options.covers(change.name) {
            if subscription.options.announcements, let task,
               let announcement = subscription.policy.consider(change, task: task, now: now) {
                if let spoken = subscription.budget.offer(announcement, task: task, now: now) {
                    send(to: subscription, "Announcement", TaskVariants.announcement(spoken, texts: subscription.texts))
                }
                if let deadline = subscription.budget.nextDeadline { timer.arm(at: deadline) }
            } else if change.kind == .removed {
                _ = subscription.policy.consider(change, task: nil, now: now)
                subscription.budget.removed(change.name)
            }
            guard subscription.options.changes else { continue }
            switch (change.kind, subscription.coalescer.record(change, now: now)) {
            case (.removed, _):
                send(to: subscription, "Removed", Variant.tuple([Variant.string(change.name.text)]))
            case (.created, _):
                sendChanged(change.name, .all, to: subscription)
            case (_, .signal(let properties)):
                sendChanged(change.name, properties, to: subscription)
            case (_, .hold(let until)):
                timer.arm(at: until)
            case (_, .none):
                break
            }
        }
    }

    private func sendDue() {
        let now = context.clock.monotonicMicros
        for subscription in registry.all {
            for entry in subscription.coalescer.takeDue(now: now) { sendChanged(entry.name, entry.properties, to: subscription) }
            if let next = subscription.coalescer.nextDeadline { timer.arm(at: next) }
            if let spoken = subscription.budget.takeDue(now: now) {
                send(to: subscription, "Announcement", TaskVariants.announcement(spoken, texts: subscription.texts))
            }
            if let next = subscription.budget.nextDeadline { timer.arm(at: next) }
        }
    }

    private func sendChanged(_ name: TaskName, _ properties: TaskProperties, to subscription: Subscription) {
        guard let task = context.store.task(name) else { return }
        send(
            to: subscription, "Changed",
            Variant.tuple([Variant.string(name.text), variants.properties(properties, of: task, texts: subscription.texts)]))
    }

    private func send(to subscription: Subscription, _ member: String, _ parameters: OpaquePointer) {
        context.signals.unicast(
            to: subscription.owner.uniqueName, path: subscription.path, interface: BusNames.subscriptionInterface,
            member: member, parameters)
    }
}
