@testable import ProgressModel
@testable import ProgressCore
@testable import ProgressPolicies
import ProgressTestSupport
import XCTest

/// Issue 12: starting 5,000 tasks sent 5,000 Announcements in 1.6 s, and progressing them
/// 468 a second. The budget holds one a second across all tasks and drops no failure.
final class AnnouncementBudgetTests: XCTestCase {
    let clock = ManualClock()
    lazy var store: TaskStore = {
        var limits = Limits()
        limits.maxTasksPerCaller = 10_000
        return TaskStore(clock: clock, limits: limits)
    }()

    func testFiveThousandTasksStayWithinTheBudgetAndEveryFailureIsNamed() throws {
        var policy = AnnouncementPolicy()
        var budget = AnnouncementBudget()
        var spoken: [(time: Int64, AnnouncementBudget.Spoken)] = []
        func hear(_ changes: [TaskChange]) {
            for change in changes {
                if change.kind == .removed { budget.removed(change.name) }
                guard change.kind != .removed,
                      let announcement = policy.consider(change, now: clock.monotonicMicros) else { continue }
                let task = change.task
                if let said = budget.offer(announcement, task: task, now: clock.monotonicMicros) {
                    spoken.append((clock.monotonicMicros, said))
                }
            }
            if let due = budget.takeDue(now: clock.monotonicMicros) { spoken.append((clock.monotonicMicros, due)) }
        }
        let names = try (0..<5_000).map { try TaskName("job-\($0)") }
        for name in names {
            hear(try store.start(name, with: TaskUpdate(), caller: ":1.1"))
            clock.advance(micros: 300)  // 5,000 starts in 1.5 s
        }
        for step in 1...30 {
            for (index, name) in names.enumerated() where index % 10 == step % 10 {
                hear(try store.setFraction(name, Double(step) / 31))
            }
            clock.advance(micros: 1_000_000 / 3)
        }
        var failed: [String] = []
        for index in stride(from: 0, to: 5_000, by: 500) {
            hear(try store.fail(names[index], message: "disk \(index) full"))
            failed.append("disk \(index) full")
        }
        for name in names.prefix(100) where store.task(name)?.state == .running { hear(try store.finish(name)) }
        for _ in 0..<20 {
            clock.advance(seconds: 1)
            hear([])
        }
        // At most one a second: between any two, at least the interval.
        for (earlier, later) in zip(spoken, spoken.dropFirst()) {
            XCTAssertGreaterThanOrEqual(later.time - earlier.time, AnnouncementBudget.defaultIntervalMicros)
        }
        let seconds = Double(clock.monotonicMicros) / 1e6
        XCTAssertLessThanOrEqual(Double(spoken.count), seconds + 1)
        // Every failure named, with its message, in an assertive announcement.
        var named: [String] = []
        for (_, said) in spoken {
            switch said {
            case .single(let task, let announcement) where announcement.event == .failed: named.append(task.message)
            case .summary(let summary): named += summary.failed.map(\.message)
            default: break
            }
            if case .summary(let summary) = said, !summary.failed.isEmpty {
                XCTAssertEqual(said.politeness, .assertive)
            }
        }
        XCTAssertEqual(named.sorted(), failed.sorted())
        guard case .summary(let first)? = spoken.dropFirst().first?.1 else {
            return XCTFail("the starts are summarised")
        }
        XCTAssertGreaterThan(first.moving, 1_000)
    }

    /// Issue 39: 20,000 clients leaving at once failed 20,000 tasks, and the budget held
    /// every one of them (850 bytes each) to name five a second, for over an hour. It holds
    /// at most `maxFailuresWaiting`; the rest are counted, once, in the next summary.
    func testAFloodOfFailuresIsCountedNotHeld() throws {
        var budget = AnnouncementBudget()
        var spoken: [AnnouncementBudget.Spoken] = []
        var mostHeld = 0
        let failures = 20_000
        for index in 0..<failures {
            let name = try TaskName("job-\(index)")
            _ = try store.start(name, with: TaskUpdate(), caller: ClientID(":1.\(index)"))
            _ = try store.fail(name, message: "owner went away")
            if let said = budget.offer(
                .init(name: name, event: .failed), task: store.task(name)!, now: clock.monotonicMicros) {
                spoken.append(said)
            }
            mostHeld = max(mostHeld, budget.failuresWaiting)
            clock.advance(micros: 50)  // 20,000 in one second
            if let due = budget.takeDue(now: clock.monotonicMicros) { spoken.append(due) }
        }
        while let deadline = budget.nextDeadline {
            clock.advance(micros: max(0, deadline - clock.monotonicMicros))
            if let due = budget.takeDue(now: clock.monotonicMicros) { spoken.append(due) }
        }
        XCTAssertLessThanOrEqual(mostHeld, AnnouncementBudget.maxFailuresWaiting)
        // The first failure is said at once; the first summary counts all the others, and
        // names five; the next ones name the rest of the hundred held, and nothing else.
        guard case .single = spoken.first, case .summary(let first)? = spoken.dropFirst().first else {
            return XCTFail("a sentence, then a summary: \(spoken.count) spoken")
        }
        XCTAssertEqual(first.failed.count + first.failedLater, failures - 1)
        let named = spoken.reduce(0) { total, said in
            if case .summary(let summary) = said { total + summary.failed.count } else { total + 1 }
        }
        XCTAssertEqual(named, 1 + AnnouncementBudget.maxFailuresWaiting)
        XCTAssertEqual(spoken.count, 1 + AnnouncementBudget.maxFailuresWaiting / AnnouncementBudget.maxFailuresNamed)
        XCTAssertNil(budget.nextDeadline)
    }

    func testALoneAnnouncementIsItsOwnSentenceAndProgressReplacesProgress() throws {
        var budget = AnnouncementBudget()
        let name = try TaskName("copy")
        _ = try store.start(name, with: TaskUpdate(), caller: ":1.1")
        let task = try XCTUnwrap(store.task(name))
        let started = AnnouncementPolicy.Announcement(name: name, event: .started)
        XCTAssertNotNil(budget.offer(started, task: task, now: 0))
        XCTAssertNil(budget.offer(AnnouncementPolicy.Announcement(name: name, event: .progress), task: task, now: 10))
        XCTAssertNil(budget.offer(AnnouncementPolicy.Announcement(name: name, event: .failed), task: task, now: 20))
        XCTAssertNil(
            budget.offer(AnnouncementPolicy.Announcement(name: name, event: .progress), task: task, now: 30),
            "no progress over a failure")
        XCTAssertNil(budget.takeDue(now: 999_999))
        guard case .single(_, let announcement)? = budget.takeDue(now: 1_000_000) else { return XCTFail() }
        XCTAssertEqual(announcement.event, .failed)
        XCTAssertNil(budget.nextDeadline)
    }
}
