import CGLib
import ProgressBus
import ProgressCore

/// Gives back the memory a large reply took. Building a Snapshot of 10,000 tasks makes about
/// a million small GVariants, and GDBus's worker thread serializes and frees the message in
/// its own malloc arena; glibc keeps all of that for reuse, so one poller of a busy daemon
/// would leave it 140 MB larger for good. Shortly after a large reply has gone (the worker
/// sends it after the handler returns), the heap is trimmed in every arena.
final class LargeReplyTrimmer {
    /// Replies with fewer values than this leave too little behind to be worth a trim.
    static let valuesWorthATrim = 20_000
    /// Long enough for the worker thread to have sent the reply and freed it.
    static let delayMicros: Int64 = 500_000

    private let clock: Clock
    private lazy var timer = MainLoopTimer(clock: clock) { _ = shim_malloc_trim() }

    init(clock: Clock) {
        self.clock = clock
    }

    /// A reply carrying about `tasks` × `properties` values was just sent.
    func replied(tasks: Int, properties: Int) {
        guard tasks * max(1, properties) >= Self.valuesWorthATrim else { return }
        // After the last of several large replies, not the first.
        timer.cancel()
        timer.arm(at: clock.monotonicMicros + Self.delayMicros)
    }
}
