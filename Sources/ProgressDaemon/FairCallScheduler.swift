import ProgressBus
import ProgressModel

/// Fair service between callers: each identity that calls (a host process, a sandboxed app,
/// a connection of unknown identity: `ChargeKey`) takes turns on the main loop, so that one
/// process's flood delays another's call by a bounded amount.
///
/// GDBus hands the main loop every call in the order they arrived, and a process with 30
/// connections polling flat out has 30 calls ahead of any other process's at all times
/// (another process's `List` waited up to 348 ms behind them). Here, while more than one
/// caller is being served (in this window of `windowMicros` or the last), a caller's calls
/// run at once until it has used `shareMicros` of the main loop in the window (2 ms in
/// 10 ms); past its share, its calls wait in its own queue, and the queues are served in
/// rotation, a slice of `shareMicros` each. A caller that has not used its share is served
/// at once, ahead of those queues. So a call from a quiet process waits for at most one
/// share of each busy caller plus the call running when it came. A caller alone (a job's
/// flood of updates with nobody else calling) is never queued: there is nobody to be fair to.
///
/// A call may go on in steps (a large reply built a slice at a time, `continueCall`): its
/// caller's later calls wait behind it, and each step is a call's worth of the caller's
/// share, so other callers' calls run between the steps.
///
/// What a caller runs in the rotation past its share (a step that ends in GDBus converting a
/// large reply, whole) is its debt: it sits out rounds, each worth one share, until the
/// others waiting have had as long, and the time it spends out of the rotation repays it
/// too. A caller that left the rotation less than `betweenCallsMicros` ago counts as waiting
/// (it may be between two calls, as a reader of pages is); once none is, the debts go. So
/// two large readers share the main loop evenly even when one's replies are converted in
/// pieces far longer than a share, and a reader alone never waits on its own debt.
///
/// A round lets the main loop in once it has held it for a share, and the rest of the round
/// waits as long as the round held it (at least `handOffMicros`). So while two callers or
/// more have work in the rotation, it takes at most half the main loop, and the rest is for
/// calls as they come and for the processes around: four readers of pages back to back, with
/// their clients and the bus, had kept both cores busy, and a poller's call waited for the
/// processor as much as for the daemon. What held the loop was often GDBus converting a large
/// reply under its connection's lock, which GDBus's worker thread takes to hand on each call
/// that arrives: without any pause, the next reader's reply took the lock again before the
/// worker woke, and a small call waited behind two or three conversions.
///
/// The order of one caller's calls never changes (a call waits whenever one of its caller's
/// is waiting), so neither does the order of one connection's: they are the same caller.
/// A call from a caller within its share, with nothing of its own waiting, runs at once
/// between two clock reads. Time is the daemon's clock, so tests drive the share and the
/// window with a `ManualClock`.
final class FairCallScheduler {
    /// How much of the main loop one caller may use in a window before its calls take turns.
    static let defaultShareMicros: Int64 = 2_000
    static let defaultWindowMicros: Int64 = 10_000
    let shareMicros: Int64
    let windowMicros: Int64
    private let clock: MainLoopClock

    init(clock: MainLoopClock, shareMicros: Int64 = FairCallScheduler.defaultShareMicros,
         windowMicros: Int64 = FairCallScheduler.defaultWindowMicros) {
        self.clock = clock
        self.shareMicros = shareMicros
        self.windowMicros = windowMicros
    }

    /// One caller's place in the rotation. Its connections share it; it goes with the last.
    final class Turn {
        let key: ChargeKey
        fileprivate var connections = 0
        fileprivate var waiting: [(client: ClientID, call: (ClientID) -> Void)] = []
        fileprivate var next = 0
        fileprivate var usedMicros: Int64 = 0
        fileprivate var window: UInt64 = 0
        fileprivate var inRotation = false
        /// The rest of a call that goes on in steps, ahead of the waiting calls.
        fileprivate var step: (() -> Step)?
        /// What it may run in its next turn in the rotation (at most a share; below zero, the
        /// rounds it sits out), and when it last left the rotation.
        fileprivate var credit: Int64 = 0
        fileprivate var leftRotation: Int64 = 0

        init(key: ChargeKey) { self.key = key }

        fileprivate var hasWaiting: Bool { step != nil || next < waiting.count }
    }

    /// What one step of a call that goes on did.
    enum Step {
        /// The call is over.
        case done
        /// More steps follow.
        case more
        /// It waits for something else (`resume`): its caller leaves the rotation meanwhile.
        case parked
    }

    private var turns: [ChargeKey: Turn] = [:]
    private var rotation: [Turn] = []
    private var window: UInt64 = 1
    private var windowStart: Int64 = 0
    /// Callers served in this window and in the one before: more than one is contention.
    private var callersThisWindow = 0
    private var callersLastWindow = 0
    private lazy var server = MainLoopTimer(clock: clock) { [unowned self] in serveRotation() }
    /// The caller that last ran in the rotation, and when: one that left it a moment ago may be
    /// between two calls (a bus round trip, longer on a loaded machine), still waiting.
    private weak var lastServed: Turn?
    private var lastServedAt: Int64 = 0
    static let betweenCallsMicros: Int64 = 50_000
    /// The least pause when a round lets the main loop in mid-way (see the type's comment).
    static let handOffMicros: Int64 = 1_000
    /// When the pause ends: a caller entering the rotation meanwhile does not cut it short.
    private var pausedUntil: Int64 = 0
    /// The caller whose call is running, for `continueCall`.
    private var running: Turn?

    /// Callers with a turn (for tests: nothing stays once their connections have left).
    var callerCount: Int { turns.count }
    /// No call is running, waiting in a caller's queue, or going on in steps.
    var isQuiet: Bool { running == nil && rotation.isEmpty && !turns.values.contains { $0.hasWaiting } }

    /// The turn of a connection of `key`; each `join` is matched by one `leave`.
    func join(_ key: ChargeKey) -> Turn {
        let turn = turns[key] ?? Turn(key: key)
        turns[key] = turn
        turn.connections += 1
        return turn
    }

    /// A connection left: its caller's turn goes with the last one, once nothing waits in it.
    func leave(_ turn: Turn) {
        turn.connections -= 1
        forgetIfDone(turn)
    }

    /// Runs `call` for `client` now, or in `turn`'s queue when the caller has used its share
    /// or has calls waiting; the time it runs counts towards its caller's share.
    func run(_ turn: Turn, _ client: ClientID, _ call: @escaping (ClientID) -> Void) {
        let start = clock.monotonicMicros
        startWindow(ifDueAt: start, for: turn)
        let contended = max(callersThisWindow, callersLastWindow) > 1
        guard !turn.hasWaiting, turn.usedMicros < shareMicros || !contended else { return wait(turn, client, call) }
        running = turn
        call(client)
        running = nil
        turn.usedMicros += clock.monotonicMicros - start
        if turn.step != nil { enterRotation(turn) }
    }

    /// Makes the running call go on in `step`, called from the rotation until it is done;
    /// its caller's later calls wait until then. Nil when no caller's call is running here
    /// (a call GDBus hands over directly), which then must finish at once; otherwise the
    /// caller's turn, to `resume` a step that parked.
    func continueCall(_ step: @escaping () -> Step) -> Turn? {
        guard let turn = running else { return nil }
        precondition(turn.step == nil, "a call goes on in one series of steps")
        turn.step = step
        return turn
    }

    /// Puts back in the rotation a caller whose step parked.
    func resume(_ turn: Turn) {
        if turn.hasWaiting { enterRotation(turn) }
    }

    private func enterRotation(_ turn: Turn) {
        if !turn.inRotation {
            turn.inRotation = true
            // The time out of the rotation was others' to use: it repays a debt.
            turn.credit = min(shareMicros, turn.credit + (clock.monotonicMicros - turn.leftRotation))
            rotation.append(turn)
        }
        server.arm(at: pausedUntil)
    }

    private func leaveRotation(_ turn: Turn, at now: Int64) {
        turn.inRotation = false
        turn.leftRotation = now
    }

    /// Queues `call` behind its caller's waiting calls, to run in the rotation.
    func wait(_ turn: Turn, _ client: ClientID, _ call: @escaping (ClientID) -> Void) {
        turn.waiting.append((client, call))
        // A caller whose step parked stays out of the rotation until it is resumed.
        if turn.step == nil || turn.inRotation { enterRotation(turn) }
    }

    private func startWindow(ifDueAt now: Int64, for turn: Turn) {
        if now - windowStart >= windowMicros {
            window &+= 1
            windowStart = now
            callersLastWindow = callersThisWindow
            callersThisWindow = 0
        }
        if turn.window != window {
            turn.window = window
            turn.usedMicros = 0
            callersThisWindow += 1
        }
    }

    /// One round: each waiting caller in turn runs its calls for up to one share, less its
    /// debt; then the main loop takes in what has arrived, and the next round follows. The
    /// main loop also takes in what has arrived whenever the round has held it for a share (a
    /// caller's step that sent a reply of thousands of values holds it for several): the round
    /// goes on after as long again, from the next caller, so a call of a caller within its share waits for
    /// about one share and one reply's conversion, not for every caller's.
    private func serveRotation() {
        let round = rotation
        rotation.removeAll(keepingCapacity: true)
        var served = false
        let roundStart = clock.monotonicMicros
        for (position, turn) in round.enumerated() {
            if served, clock.monotonicMicros - roundStart >= shareMicros {
                rotation = Array(round[position...]) + rotation
                let now = clock.monotonicMicros
                pausedUntil = now + max(Self.handOffMicros, now - roundStart)
                return server.arm(at: pausedUntil)
            }
            turn.credit = min(shareMicros, turn.credit + shareMicros)
            guard turn.credit > 0 else {
                rotation.append(turn)
                continue
            }
            served = true
            let start = clock.monotonicMicros
            var now = start
            var parked = false
            while turn.hasWaiting && now - start < turn.credit {
                running = turn
                defer { running = nil }
                if let step = turn.step {
                    switch step() {
                    case .done: turn.step = nil
                    case .more: break
                    case .parked: parked = true
                    }
                    now = clock.monotonicMicros
                    if parked { break }
                    continue
                }
                let waiting = turn.waiting[turn.next]
                turn.waiting[turn.next].call = { _ in }
                turn.next += 1
                waiting.call(waiting.client)
                now = clock.monotonicMicros
            }
            startWindow(ifDueAt: now, for: turn)
            turn.usedMicros += now - start
            turn.credit -= now - start
            lastServed = turn
            lastServedAt = now
            if parked {
                leaveRotation(turn, at: now)
            } else if turn.hasWaiting {
                rotation.append(turn)
            } else {
                turn.waiting.removeAll(keepingCapacity: turn.waiting.count <= 64)
                turn.next = 0
                leaveRotation(turn, at: now)
                forgetIfDone(turn)
            }
        }
        // Every caller waiting sits out. They wait for the caller that ran last if it left the
        // rotation a moment ago (it may be between two calls); else none owes the others
        // anything, and the rounds they would sit out together are skipped.
        if !served, let most = rotation.map(\.credit).max() {
            let resumeAt = lastServedAt + Self.betweenCallsMicros
            if let last = lastServed, !last.inRotation, clock.monotonicMicros < resumeAt {
                return server.arm(at: resumeAt)
            }
            for turn in rotation { turn.credit += shareMicros - most }
        }
        if !rotation.isEmpty { server.arm(at: 0) }
    }

    private func forgetIfDone(_ turn: Turn) {
        if turn.connections == 0 && !turn.hasWaiting && turns[turn.key] === turn { turns[turn.key] = nil }
    }
}
