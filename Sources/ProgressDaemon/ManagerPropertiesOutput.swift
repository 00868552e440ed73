import CGLib
import ProgressBus
import ProgressModel
import ProgressCore
import ProgressPolicies

/// The manager's properties, declared once: each name, how its value is read, and whether a
/// change of it is announced. Get and GetAll read the same rows as PropertiesChanged, and a
/// test keeps the names equal to the XML's.
struct ManagerProperty: Sendable {
    /// What the values are read from.
    struct Sources {
        let context: DaemonContext
        let variants: TaskVariants
        let changeIndex: ChangeIndex
        /// "ok", or "full" or "failed" while the state directory refuses writes.
        let storageState: () -> String
    }

    let name: String
    /// Announced by PropertiesChanged when it changes. Version never changes, and Serial
    /// moves with every change: pollers read it, so a signal for it would be one per change.
    let signalled: Bool
    /// The value, from the sources and the tasks a read shows.
    let value: @Sendable (Sources, TaskView) -> OpaquePointer

    static let all = [
        ManagerProperty(name: "Version", signalled: false) { sources, _ in
            Variant.string(sources.context.configuration.version)
        },
        ManagerProperty(name: "TaskCount", signalled: true) { _, tasks in
            g_variant_new_uint32(UInt32(clamping: tasks.count))
        },
        ManagerProperty(name: "Overall", signalled: true) { sources, tasks in
            sources.variants.summary(tasks.summary())
        },
        ManagerProperty(name: "Serial", signalled: false) { sources, _ in
            g_variant_new_uint64(guint64(sources.changeIndex.lastSequence))
        },
        ManagerProperty(name: "StorageState", signalled: true) { sources, _ in Variant.string(sources.storageState()) },
    ]
    static let signalledRows = all.filter(\.signalled)
}

/// The manager's signalled properties (TaskCount and Overall), coalesced by the same rules
/// as a task's properties, so that a burst of Starts is not a burst of signals.
final class ManagerPropertiesOutput: ChangeOutput {
    enum Object: Hashable, Sendable { case manager }

    struct Properties: OptionSet, Sendable {
        let rawValue: UInt8
        static let signalled = Properties(rawValue: 1)
    }

    private let sources: ManagerProperty.Sources
    private var coalescer: Coalescer<Object, Properties>
    private lazy var timer = MainLoopTimer(clock: sources.context.clock) { [unowned self] in sendDue() }
    /// The values last announced, one per signalled row (referenced).
    private var sent: [OpaquePointer]

    init(sources: ManagerProperty.Sources) {
        self.sources = sources
        coalescer = Coalescer(maxSignalsPerSecond: sources.context.limits.maxSignalsPerSecond)
        sent = sources.context.read(.tasks([])) { tasks in
            ManagerProperty.signalledRows.map { g_variant_ref_sink($0.value(sources, tasks)) }
        }
    }

    deinit { sent.forEach { g_variant_unref($0) } }

    /// Nothing is sent once the daemon stops.
    func stop() { timer.cancel() }

    func publish(_ batch: ChangeBatch) { valuesMayHaveChanged() }

    /// A value may differ from what was sent (a batch, or the state directory's state).
    func valuesMayHaveChanged() {
        // Any batch may change them, and what changed is only known by comparing with what was
        // sent: so they are marked as maybe changed, and compared when a signal may go (at
        // the signal rate). Once a signal is held for both, another change adds nothing to it
        // (its timer is set: the coalescer's `alsoHeld`).
        if coalescer.hasHeld { return }
        switch coalescer.record(.manager, .signalled, immediate: false, now: sources.context.clock.monotonicMicros) {
        case .signal: sendChanged()
        case .hold(let until): timer.arm(at: until)
        case .alsoHeld, .none: break
        }
    }

    func flushBeforeRead(_ scope: ReadScope, tasks: TaskView) {
        switch scope {
        case .task, .tasks: return
        case .manager, .everything: break
        }
        if coalescer.flush(.manager, now: sources.context.clock.monotonicMicros) != nil { sendChanged(tasks) }
    }

    /// A property's current value, for Get and GetAll; a read never overtakes a signal about
    /// an older value.
    func value(of property: String) -> OpaquePointer? {
        guard let row = ManagerProperty.all.first(where: { $0.name == property }) else { return nil }
        return sources.context.read(.manager) { row.value(sources, $0) }
    }

    private func sendDue() {
        if !coalescer.takeDue(now: sources.context.clock.monotonicMicros).isEmpty { sendChanged() }
        if let next = coalescer.nextDeadline { timer.arm(at: next) }
    }

    /// Each signalled property only if it differs from what was last sent, as a read shows
    /// it: TaskCount and Overall sum every task, so no one change carries them.
    private func sendChanged() {
        sources.context.read(.tasks([])) { sendChanged($0) }
    }

    private func sendChanged(_ tasks: TaskView) {
        var changed: [(String, OpaquePointer)] = []
        for (index, row) in ManagerProperty.signalledRows.enumerated() {
            let value = g_variant_ref_sink(row.value(sources, tasks))!
            if g_variant_equal(UnsafeRawPointer(value), UnsafeRawPointer(sent[index])) != 0 {
                g_variant_unref(value)
                continue
            }
            g_variant_unref(sent[index])
            sent[index] = value
            changed.append((row.name, value))
        }
        guard !changed.isEmpty else { return }
        let properties = Variant.container("a{sv}") { builder in
            for (name, value) in changed { Variant.addEntry(builder, name, value) }
        }
        sources.context.signals.propertiesChanged(
            path: BusNames.managerPath, interface: BusNames.managerInterface, properties)
    }
}
