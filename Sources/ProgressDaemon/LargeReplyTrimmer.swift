import CGLib
import ProgressBus
import ProgressCore

/// Gives back the memory a large reply took. Building a Snapshot of 10,000 tasks makes about
/// a million small GVariants, and GDBus's worker thread serializes and frees the message in
/// its own malloc arena; glibc keeps all of that for reuse, so one poller of a busy daemon
/// would leave it 140 MB larger for good. Shortly after a large reply has gone (the worker
/// sends it after the handler returns), the heap is trimmed in every arena.
///
/// Two settings of glibc's, made once as the daemon starts (`configureAllocator`), keep
/// that trim effective:
/// - The reply's own buffers are megabytes. glibc maps a block that large by itself, but once
///   one is freed it raises the size it maps from to that block's (up to 32 MiB): the next
///   reply's buffers then come from the heap, which stays at its high-water mark. Five
///   Snapshots of 10,000 tasks in a row left the daemon 21 % larger (38 MB to 46 MB) until
///   the size was fixed; with it fixed they leave it as it was.
/// - GDBus's worker thread gets a malloc arena of its own, and `malloc_trim` gives back the
///   free pages inside a thread's arena but not its free top. In about half the runs of the
///   test of five Snapshots in a row, that arena held 13.8 MB of which 0.85 MB was in use,
///   and the daemon stayed 5 MB larger; with one arena, 0 of 5 runs did. The worker and the
///   main loop then share one arena's lock; small blocks come from each thread's cache.
public final class LargeReplyTrimmer {
    /// Blocks this large or larger are mapped alone and unmapped when freed. At 1 MiB a
    /// Snapshot took as long as before; at glibc's starting 128 KiB about 5 % longer (page
    /// faults on every fresh mapping).
    static let mappedBlockBytes: Int32 = 1 << 20

    /// Process-wide; before any thread starts, so that GDBus's worker shares the one arena.
    public static func configureAllocator() {
        _ = shim_malloc_map_blocks_from(mappedBlockBytes)
        _ = shim_malloc_arenas(1)
    }
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
