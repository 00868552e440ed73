import CGLib

/// A one-shot timer on the GLib main loop that can be armed again: `arm(at:)` keeps the
/// earlier of the armed and the new deadline, and the action runs once when it comes,
/// never before. The one place that turns a deadline into a main-loop wake-up, so clamping
/// is done alike for every timer in the daemon; where the deadline waits is its clock's
/// (`MainLoopClock`).
public final class MainLoopTimer {
    private let clock: MainLoopClock
    /// The one GLib source of every timer of this priority.
    private let source: TimerSource
    /// What runs when the timer fires. Settable, so that an owner can make its timer
    /// before it can name itself, keep it in a `let` and set this after.
    public var action: () -> Void
    /// When the shared source is to run this timer, in GLib's monotonic time; -1 while the
    /// timer is not armed on it.
    fileprivate private(set) var readyTime: Int64 = -1
    /// The armed timer's id on a clock that runs its timers (0: none).
    private var clockTimer = 0
    /// When the armed timer fires; `.max` while unarmed.
    public private(set) var deadline: Int64 = .max

    /// `priority` is GLib's: a timer at G_PRIORITY_DEFAULT_IDLE waits, once due, until no
    /// call or other event of default priority is ready.
    public init(clock: MainLoopClock, priority: Int32 = G_PRIORITY_DEFAULT, _ action: @escaping () -> Void = {}) {
        self.clock = clock
        source = TimerSource.shared(priority: priority)
        self.action = action
    }

    deinit { cancel() }

    public var isArmed: Bool { readyTime >= 0 || clockTimer != 0 }

    /// Arms the timer for `deadline` (monotonic microseconds), unless it already fires sooner.
    public func arm(at deadline: Int64) {
        if isArmed && self.deadline <= deadline { return }
        cancel()
        self.deadline = deadline
        switch clock.deadlines {
        case .glib:
            readyTime = max(0, deadline)
        case .clock(let timers):
            if deadline > timers.monotonicMicros {
                clockTimer = timers.addTimer(at: deadline) { [weak self] in self?.fire() }
                return
            }
            readyTime = Int64(g_get_monotonic_time())
        case .realTime:
            readyTime = Int64(g_get_monotonic_time()) + max(0, deadline - clock.monotonicMicros)
        }
        source.add(self)
    }

    public func cancel() {
        if readyTime >= 0 { source.remove(self) }
        if clockTimer != 0, case .clock(let timers) = clock.deadlines { timers.removeTimer(clockTimer) }
        readyTime = -1
        clockTimer = 0
        deadline = .max
    }

    fileprivate func fire() {
        readyTime = -1
        clockTimer = 0
        deadline = .max
        action()
    }
}

/// Every armed MainLoopTimer of one priority, run from one GLib source whose ready time is
/// the earliest of theirs. A timeout source each would add a source to every pass of the
/// main loop for as long as it is armed, and the daemon keeps several armed while a task
/// updates (signal pacing, the journal's save, the launcher entry, Overall): GLib's prepare
/// and check visit them all at every call.
private final class TimerSource {
    /// Read and written on the daemon's one thread, like every MainLoopTimer.
    nonisolated(unsafe) private static var byPriority: [Int32: TimerSource] = [:]
    /// GLib keeps a pointer to the functions for as long as the source lives: for good.
    nonisolated(unsafe) private static let functions: UnsafeMutablePointer<GSourceFuncs> = {
        let functions = UnsafeMutablePointer<GSourceFuncs>.allocate(capacity: 1)
        functions.initialize(to: GSourceFuncs(
            prepare: nil, check: nil, dispatch: { _, callback, data in callback!(data) }, finalize: nil,
            closure_callback: nil, closure_marshal: nil))
        return functions
    }()

    static func shared(priority: Int32) -> TimerSource {
        if let source = byPriority[priority] { return source }
        let source = TimerSource(priority: priority)
        byPriority[priority] = source
        return source
    }

    private struct Entry { weak var timer: MainLoopTimer? }
    private let source: UnsafeMutablePointer<GSource>
    private var armed: [Entry] = []
    /// The source's ready time: never later than the earliest armed timer's; -1 when none is.
    private var readyTime: Int64 = -1

    private init(priority: Int32) {
        source = g_source_new(Self.functions, UInt32(MemoryLayout<GSource>.size))
        g_source_set_priority(source, priority)
        g_source_set_name(source, "progressd timers")
        g_source_set_callback(source, { data in
            assertOnMainLoop()
            Unmanaged<TimerSource>.fromOpaque(data!).takeUnretainedValue().runDue()
            return 1 // G_SOURCE_CONTINUE
        }, Unmanaged.passUnretained(self).toOpaque(), nil)
        g_source_attach(source, nil)
    }

    func add(_ timer: MainLoopTimer) {
        armed.append(Entry(timer: timer))
        if readyTime < 0 || timer.readyTime < readyTime { setReadyTime(timer.readyTime) }
    }

    /// The source may wake once more for a timer no longer armed: it finds nothing due then.
    func remove(_ timer: MainLoopTimer) {
        armed.removeAll { $0.timer == nil || $0.timer === timer }
    }

    /// Runs every timer due at the time GLib found the source ready, earliest deadline first
    /// (a loop that wakes late finds several due at once), those due at the same time in the
    /// order they were armed; one armed while they run waits for the next pass, as a new
    /// timeout would. The due are held weakly: an action that drops another due timer's owner
    /// stops that timer.
    private func runDue() {
        let now = Int64(g_source_get_time(source))
        var due: [(readyTime: Int64, order: Int, entry: Entry)] = []
        var next: Int64 = -1
        armed.removeAll { entry in
            guard let timer = entry.timer, timer.readyTime >= 0 else { return true }
            if timer.readyTime <= now {
                due.append((timer.readyTime, due.count, entry))
                return true
            }
            if next < 0 || timer.readyTime < next { next = timer.readyTime }
            return false
        }
        setReadyTime(next)
        due.sort { ($0.readyTime, $0.order) < ($1.readyTime, $1.order) }
        for (_, _, entry) in due {
            if let timer = entry.timer, timer.readyTime >= 0, timer.readyTime <= now { timer.fire() }
        }
    }

    private func setReadyTime(_ time: Int64) {
        guard time != readyTime else { return }
        readyTime = time
        g_source_set_ready_time(source, gint64(time))
    }
}

/// Stops the process if the caller is not on the thread that runs the GLib main loop.
/// Every handler entered from GLib calls it first: the daemon's state has one owner, that
/// thread, and a call from anywhere else would be a race the tests could miss.
@inline(__always)
public func assertOnMainLoop(file: StaticString = #fileID, line: UInt = #line) {
    precondition(g_main_context_is_owner(nil) != 0, "called off the GLib main loop's thread", file: file, line: line)
}
