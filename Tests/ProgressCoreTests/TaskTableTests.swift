@testable import ProgressModel
@testable import ProgressCore
import ProgressTestSupport
import XCTest

/// What the task table keeps as tasks change, checked against a walk of every task after
/// any mix of calls, timers and removals: the running totals behind `Overall` and
/// `Aggregate`, and the deadline queue behind the timing rules.
final class TaskTableTests: XCTestCase {
    var clock = ManualClock()
    lazy var store = TaskStore(clock: clock)
    lazy var door = TaskFrontDoor(store: store, firstSequence: 1)
    let apps = ["", "org.example.Files", "org.example.Mail"]

    func assertTotalsMatchAWalk(
        _ step: Int, seed: UInt64, after command: TaskCommand, file: StaticString = #filePath, line: UInt = #line
    ) {
        let step = "\(step) of seed \(seed), after \(command)"
        for appId in [nil] + apps.map(Optional.some) {
            let kept = store.summary(appId: appId)
            let walked = store.summaryByWalking(appId: appId)
            XCTAssertEqual(kept.active, walked.active, "step \(step), app \(appId ?? "all")", file: file, line: line)
            XCTAssertEqual(kept.state, walked.state, "step \(step), app \(appId ?? "all")", file: file, line: line)
            XCTAssertEqual(kept.stalled, walked.stalled, "step \(step), app \(appId ?? "all")", file: file, line: line)
            XCTAssertEqual(
                kept.indeterminate, walked.indeterminate, "step \(step), app \(appId ?? "all")", file: file, line: line)
            XCTAssertEqual(
                kept.fraction, walked.fraction, accuracy: 1e-9, "step \(step), app \(appId ?? "all")",
                file: file, line: line)
        }
    }

    /// The queue may be early, never late: housekeeping leaves no task past its deadline
    /// (but an ended parent waiting for a live child), and the next deadline is no later
    /// than the earliest real one.
    func assertNoDeadlineIsMissed(_ step: Int, seed: UInt64, file: StaticString = #filePath, line: UInt = #line) {
        let step = "\(step) of seed \(seed)"
        let now = clock.monotonicMicros
        let real = store.sortedNames.compactMap { name in store.deadline(of: name).map { (name, $0) } }
        for (name, deadline) in real where deadline <= now {
            XCTAssertNotNil(
                store.task(name)?.outcomeTime, "step \(step): \(name) is past its deadline", file: file, line: line)
        }
        if let earliest = real.map(\.1).min() {
            XCTAssertLessThanOrEqual(store.nextDeadline ?? .max, max(earliest, now + TaskStore.lingerRecheckMicros),
                                     "step \(step)", file: file, line: line)
        }
    }

    /// Random mixes, each from a seed that its failures name: a failing mix replays with
    /// PROGRESSD_TABLE_SEED.
    func testRunningTotalsAndDeadlinesAgreeWithAWalkAfterEveryChange() throws {
        let given = ProcessInfo.processInfo.environment["PROGRESSD_TABLE_SEED"].flatMap { UInt64($0) }
        for seed in given.map({ [$0] }) ?? (0..<4).map({ _ in UInt64.random(in: 0...UInt64.max) }) {
            // Each mix from a fresh clock and store, as a replay of its seed has.
            clock = ManualClock()
            store = TaskStore(clock: clock)
            door = TaskFrontDoor(store: store, firstSequence: 1)
            // Named before it runs, unbuffered, so that a crash names it too.
            FileHandle.standardError.write(Data("TaskTableTests: the mix of seed \(seed)\n".utf8))
            try runRandomMix(seed: seed)
        }
    }

    func runRandomMix(seed: UInt64) throws {
        var random = SeededRandom(state: seed)
        let names = try (0..<40).map { try TaskName("t\($0)") }
        for step in 0..<3_000 {
            let name = names.randomElement(using: &random)!
            var update = TaskUpdate()
            let command: TaskCommand
            switch Int.random(in: 0..<10, using: &random) {
            case 0, 1:
                update.appId = apps.randomElement(using: &random)!
                update.weight = [0.0, 1.0, 2.5, 1_000].randomElement(using: &random)!
                update.fraction = Double.random(in: 0...1, using: &random)
                // Some become children of another task, so parents' values follow theirs.
                if Bool.random(using: &random), let parent = names.randomElement(using: &random), parent != name {
                    update.parent = parent.text
                }
                command = .start(name, update)
            case 2: command = .setFraction(name, Double.random(in: 0...1, using: &random))
            case 3: command = .pulse(name)
            case 4:
                update.state = [.paused, .running].randomElement(using: &random)!
                update.stallSeconds = [1, 5, 30].randomElement(using: &random)!
                update.leaseSeconds = [2, 20, 60].randomElement(using: &random)!
                update.lingerSeconds = [0, 3, 10].randomElement(using: &random)!
                command = .update(name, update)
            case 5: command = .finish(name)
            case 6: command = .fail(name, message: "disk full")
            case 7: command = .remove(name)
            case 8:
                clock.advance(seconds: Double.random(in: 0...40, using: &random))  // stalls, leases, linger
                command = .setFraction(name, 0.5)
            default:
                update.indeterminate = Bool.random(using: &random)
                command = .update(name, update)
            }
            _ = door.perform(command, by: .client(":1.1"))  // refusals are part of the mix
            // As the daemon does: housekeeping whenever the next deadline has come.
            while let next = store.nextDeadline, next <= clock.monotonicMicros { _ = door.runTimers() }
            assertTotalsMatchAWalk(step, seed: seed, after: command)
            assertNoDeadlineIsMissed(step, seed: seed)
        }
    }

    /// The sums are counted afresh as the table changes; a long run of updates keeps them exact.
    func testALongRunOfUpdatesDoesNotDrift() throws {
        let names = try (0..<3).map { try TaskName("t\($0)") }
        for name in names { _ = door.perform(.start(name, TaskUpdate()), by: .client(":1.1")) }
        for step in 0..<20_000 {
            _ = door.perform(.setFraction(names[step % 3], Double(step % 997) / 997), by: .client(":1.1"))
        }
        XCTAssertEqual(store.summary().fraction, store.summaryByWalking().fraction, accuracy: 1e-12)
    }

    func testTheQueueGivesWhatIsDueOnceAndKeepsTheRest() throws {
        var queue = DeadlineQueue()
        let names = try (0..<500).map { try TaskName("t\($0)") }
        var random = SystemRandomNumberGenerator()
        var expected: [TaskName: Int64] = [:]
        for name in names {
            let deadline = Int64.random(in: 0..<1_000, using: &random)
            queue.insert(deadline, name)
            queue.insert(deadline + 5, name)  // a later duplicate, as an early entry leaves
            expected[name] = deadline
        }
        for now in stride(from: Int64(0), to: 1_100, by: 50) {
            let due = queue.takeDue(now: now)
            XCTAssertEqual(due, Set(expected.filter { $0.value <= now }.keys), "at \(now)")
            for name in due { expected[name] = expected[name]! + 5 <= now ? nil : expected[name]! + 5 }
            XCTAssertTrue((queue.earliest ?? .max) > now)
        }
        XCTAssertEqual(queue.count, 0)
    }
}
