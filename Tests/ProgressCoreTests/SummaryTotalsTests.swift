@testable import ProgressCore
import XCTest

/// `Overall` and `Aggregate` come from running totals; after any mix of calls, timers and
/// removals they equal a walk of every task.
final class SummaryTotalsTests: XCTestCase {
    let clock = ManualClock()
    lazy var store = TaskStore(clock: clock)
    lazy var door = TaskFrontDoor(store: store, firstSequence: 1)
    let apps = ["", "org.example.Files", "org.example.Mail"]

    func assertTotalsMatchAWalk(_ step: Int, file: StaticString = #filePath, line: UInt = #line) {
        for appId in [nil] + apps.map(Optional.some) {
            let kept = store.summary(appId: appId)
            let walked = store.summaryByWalking(appId: appId)
            XCTAssertEqual(kept.active, walked.active, "step \(step), app \(appId ?? "all")", file: file, line: line)
            XCTAssertEqual(kept.state, walked.state, "step \(step), app \(appId ?? "all")", file: file, line: line)
            XCTAssertEqual(kept.stalled, walked.stalled, "step \(step), app \(appId ?? "all")", file: file, line: line)
            XCTAssertEqual(kept.indeterminate, walked.indeterminate, "step \(step), app \(appId ?? "all")", file: file, line: line)
            XCTAssertEqual(kept.fraction, walked.fraction, accuracy: 1e-9, "step \(step), app \(appId ?? "all")", file: file, line: line)
        }
    }

    func testRunningTotalsEqualAWalkAfterEveryChange() throws {
        var random = SystemRandomNumberGenerator()
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
            _ = door.runTimers()
            assertTotalsMatchAWalk(step)
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
}
