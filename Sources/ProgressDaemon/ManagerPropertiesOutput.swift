import CGLib
import ProgressBus
import ProgressCore

/// The manager's TaskCount and Overall, coalesced by the same rules as a task's
/// properties, so that a burst of Starts is not a burst of signals.
final class ManagerPropertiesOutput: ChangeOutput {
    enum Object: Hashable, Sendable { case manager }

    struct Properties: OptionSet, Sendable {
        let rawValue: UInt8
        static let taskCount = Properties(rawValue: 1)
        static let overall = Properties(rawValue: 2)
    }

    private let context: DaemonContext
    private let variants: TaskVariants
    private var coalescer: Coalescer<Object, Properties>
    private lazy var timer = MainLoopTimer(clock: context.clock) { [unowned self] in sendDue() }
    private var sentTaskCount: UInt32
    private var sentOverall: TaskSummary

    init(context: DaemonContext, variants: TaskVariants) {
        self.context = context
        self.variants = variants
        coalescer = Coalescer(maxSignalsPerSecond: context.limits.maxSignalsPerSecond)
        sentTaskCount = UInt32(context.store.count)
        sentOverall = context.store.summary()
    }

    /// Nothing is sent once the daemon stops.
    func stop() { timer.cancel() }

    func publish(_ batch: ChangeBatch) {
        // Any batch may change them, and what changed is only known by comparing with what was
        // sent: so they are marked as maybe changed, and compared when a signal may go (at
        // the signal rate). Once a signal is held for both, another change adds nothing to it.
        if coalescer.hasHeld && timer.isArmed { return }
        switch coalescer.record(.manager, [.taskCount, .overall], immediate: false, now: context.clock.monotonicMicros) {
        case .signal: sendChanged()
        case .hold(let until): timer.arm(at: until)
        case .none: break
        }
    }

    func flushBeforeRead(_ scope: ReadScope) {
        if case .task = scope { return }
        if coalescer.flush(.manager, now: context.clock.monotonicMicros) != nil { sendChanged() }
    }

    /// A property's current value, for Get and GetAll.
    func value(of property: String) -> OpaquePointer? {
        switch property {
        case "Version": return Variant.string(context.configuration.version)
        case "TaskCount": return g_variant_new_uint32(UInt32(context.store.count))
        case "Overall": return variants.summary(context.store.summary())
        default: return nil
        }
    }

    private func sendDue() {
        if !coalescer.takeDue(now: context.clock.monotonicMicros).isEmpty { sendChanged() }
        if let next = coalescer.nextDeadline { timer.arm(at: next) }
    }

    /// Each property only if it differs from what was last sent.
    private func sendChanged() {
        let count = UInt32(context.store.count)
        let overall = context.store.summary()
        guard count != sentTaskCount || overall != sentOverall else { return }
        let changed = Variant.container("a{sv}") { builder in
            if count != sentTaskCount { Variant.addEntry(builder, "TaskCount", g_variant_new_uint32(count)) }
            if overall != sentOverall { Variant.addEntry(builder, "Overall", variants.summary(overall)) }
        }
        sentTaskCount = count
        sentOverall = overall
        context.signals.propertiesChanged(path: BusNames.managerPath, interface: BusNames.managerInterface, changed)
    }
}
