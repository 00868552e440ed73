/// What a read is about to show, so that outputs holding signals back can send them first:
/// a reply never overtakes a signal about an older value.
public enum ReadScope: Sendable, Equatable {
    case task(TaskName)
    /// The manager's own properties (TaskCount, Overall).
    case manager
    case everything
}

/// A listener on the change stream: D-Bus signals, announcements, subscriptions, the
/// accessibility export, bridges. Each is one type in one file, added where the daemon is
/// assembled.
public protocol ChangeOutput: AnyObject {
    /// Every non-empty batch, in sequence order, after the caller has its reply.
    func publish(_ batch: ChangeBatch)
    /// A read of `scope` is about to be answered; send what is held for it.
    func flushBeforeRead(_ scope: ReadScope)
}

extension ChangeOutput {
    public func flushBeforeRead(_ scope: ReadScope) {}
}

/// The listener that must see a batch before the caller hears success: persistence, so
/// that a reply means the transition is on disk.
public protocol ChangeRecorder: AnyObject {
    func record(_ batch: ChangeBatch)
}

/// The ordered stream from the front door to the outputs. An input hands it a batch in
/// two steps around its reply (`recordBeforeReply`, then `publishAfterReply`), or in one
/// when there is nobody to reply to (`deliver`: timers, lost connections, bridges).
public final class ChangeStream {
    private var recorders: [ChangeRecorder] = []
    private var outputs: [ChangeOutput] = []
    private var lastPublished: UInt64?

    public init() {}

    public func add(recorder: ChangeRecorder) { recorders.append(recorder) }
    public func add(_ output: ChangeOutput) { outputs.append(output) }

    public func recordBeforeReply(_ batch: ChangeBatch) {
        guard !batch.isEmpty else { return }
        for recorder in recorders { recorder.record(batch) }
    }

    public func publishAfterReply(_ batch: ChangeBatch) {
        guard let first = batch.changes.first, let last = batch.lastSequence else { return }
        // Batches leave the front door numbered; one published out of order or twice would
        // show outputs a past that did not happen.
        precondition(
            lastPublished.map { first.sequence == $0 + 1 } ?? true, "change \(first.sequence) published after \(lastPublished ?? 0)")
        lastPublished = last
        for output in outputs { output.publish(batch) }
    }

    /// A batch nobody waits on a reply for.
    public func deliver(_ batch: ChangeBatch) {
        recordBeforeReply(batch)
        publishAfterReply(batch)
    }

    public func flushBeforeRead(_ scope: ReadScope) {
        for output in outputs { output.flushBeforeRead(scope) }
    }
}
