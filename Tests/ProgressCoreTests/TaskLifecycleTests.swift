@testable import ProgressModel
@testable import ProgressCore
import ProgressTestSupport
import XCTest

/// Stall, lease, linger and the requests, with a clock that moves only when told to.
final class TaskLifecycleTests: XCTestCase {
    let clock = ManualClock()
    lazy var store = TaskStore(clock: clock)
    let job: ClientID = ":1.10"

    func name(_ text: String) -> TaskName { try! TaskName(text) }
    func task(_ text: String) -> ProgressTask? { store.task(name(text)) }

    @discardableResult
    func start(
        _ text: String, _ pairs: [(String, OptionValue)] = [], caller: ClientID = ":1.10"
    ) throws -> [TaskChange] {
        try store.start(
            name(text), with: TaskUpdate.parse(pairs.map { (key: $0.0, value: $0.1) }, for: .start), caller: caller)
    }

    func update(_ text: String, _ pairs: [(String, OptionValue)]) throws -> [TaskChange] {
        try store.update(name(text), with: TaskUpdate.parse(pairs.map { (key: $0.0, value: $0.1) }, for: .update))
    }

    func testARunningTaskStallsWithoutUpdatesAndRecovers() throws {
        try start("copy", [("stall-seconds", .uint64(30))])
        clock.advance(seconds: 29.9)
        XCTAssertTrue(store.housekeeping().isEmpty)
        XCTAssertEqual(store.deadline(of: name("copy")), clock.monotonicMicros + 100_000)
        clock.advance(seconds: 0.1)
        let changes = store.housekeeping()
        XCTAssertEqual(changes.map(\.name), [name("copy")])
        XCTAssertTrue(changes[0].properties.contains(.stalled))
        XCTAssertTrue(changes[0].isImmediate)
        XCTAssertEqual(task("copy")?.isStalled, true)
        XCTAssertEqual(task("copy")?.state, .running, "a stall is not a state")
        let recovered = try store.setFraction(name("copy"), 0.1)
        XCTAssertTrue(recovered.own.properties.contains(.stalled))
        XCTAssertEqual(task("copy")?.isStalled, false)
    }

    func testALeaseExpiresAndAnyCallRenewsIt() throws {
        try start("script", [("lease-seconds", .uint64(60)), ("fraction", .double(0.2))])
        clock.advance(seconds: 59)
        // The same value again: no visible change, but the job is alive.
        XCTAssertTrue(try store.setFraction(name("script"), 0.2).isEmpty)
        clock.advance(seconds: 59)
        _ = store.housekeeping()
        XCTAssertEqual(task("script")?.state, .running)
        clock.advance(seconds: 1)
        let changes = store.housekeeping()
        XCTAssertEqual(task("script")?.state, .failed)
        XCTAssertEqual(task("script")?.message, "expired: no update for 60 seconds")
        XCTAssertTrue(changes.own.isImmediate)
    }

    func testPersistentAndCallerTasksDoNotExpireButStall() throws {
        try start("kept", [("lifetime", .string("persistent"))])
        try start("bound", [("lifetime", .string("caller"))])
        clock.advance(seconds: 7_200)
        _ = store.housekeeping()
        XCTAssertEqual(task("kept")?.state, .running)
        XCTAssertEqual(task("bound")?.state, .running)
        XCTAssertEqual(task("kept")?.isStalled, true)
        XCTAssertNil(store.deadline(of: name("kept")), "nothing left to time once stalled")
    }

    func testAPausedTaskDoesNotStallButItsLeaseRuns() throws {
        try start("p", [("lease-seconds", .uint64(100))])
        _ = try update("p", [("state", .string("paused"))])
        clock.advance(seconds: 99)
        _ = store.housekeeping()
        XCTAssertEqual(task("p")?.isStalled, false)
        clock.advance(seconds: 1)
        _ = store.housekeeping()
        XCTAssertEqual(task("p")?.state, .failed)
    }

    func testOutcomesLingerThenGo() throws {
        try start("done")
        try start("quick", [("linger-seconds", .uint64(0))])
        _ = try store.finish(name("done"))
        _ = try store.fail(name("quick"), message: "no")
        let removed = store.housekeeping()
        XCTAssertEqual(removed.map(\.kind), [.removed])
        XCTAssertNil(task("quick"))
        clock.advance(seconds: 59)
        XCTAssertTrue(store.housekeeping().isEmpty)
        XCTAssertEqual(task("done")?.state, .finished)
        clock.advance(seconds: 1)
        XCTAssertEqual(store.housekeeping().map(\.kind), [.removed])
        XCTAssertEqual(store.count, 0)
    }

    func testCancelRequests() throws {
        try start("plain")
        assertError(try store.requestCancel(name("plain")), "NotAllowed", "not cancellable")
        try start("copy", [("cancellable", .bool(true))])
        let changes = try store.requestCancel(name("copy"))
        XCTAssertEqual(changes.own.requests, [.cancelRequested])
        XCTAssertTrue(changes.own.properties.contains(.cancelRequested))
        XCTAssertEqual(task("copy")?.cancelRequested, true)
        XCTAssertTrue(try store.requestCancel(name("copy")).isEmpty, "asking twice is harmless")
        _ = try update("copy", [("state", .string("cancelled"))])
        XCTAssertEqual(task("copy")?.state, .cancelled)
        assertError(try store.requestCancel(name("copy")), "InvalidValue", "is cancelled")
        assertError(try store.requestCancel(name("ghost")), "NoSuchTask", "'ghost'")
    }

    func testPauseAndResumeRequests() throws {
        try start("plain")
        assertError(try store.requestPause(name("plain")), "NotAllowed", "not pausable")
        assertError(try store.requestResume(name("plain")), "NotAllowed", "not pausable")
        try start("copy", [("pausable", .bool(true))])
        XCTAssertTrue(try store.requestResume(name("copy")).isEmpty, "already running")
        XCTAssertEqual(try store.requestPause(name("copy")).own.requests, [.pauseRequested])
        XCTAssertEqual(task("copy")?.state, .running, "only the job changes the state")
        _ = try update("copy", [("state", .string("paused"))])
        XCTAssertTrue(try store.requestPause(name("copy")).isEmpty, "already paused")
        XCTAssertEqual(try store.requestResume(name("copy")).own.requests, [.resumeRequested])
    }

    func testSummaryOverTopLevelTasksAndPerApplication() throws {
        XCTAssertEqual(store.summary().state, "idle")
        try start("a", [("fraction", .double(0.2)), ("app-id", .string("org.example.Files"))])
        try start("b", [("fraction", .double(0.6)), ("weight", .double(3))])
        try start("child", [("parent", .string("b"))])
        var summary = store.summary()
        XCTAssertEqual(summary.active, 2)
        XCTAssertEqual(summary.state, "running")
        XCTAssertEqual(summary.fraction, (0.2 + 3 * 0.0) / 4, accuracy: 1e-9, "b's value comes from its child")
        XCTAssertEqual(store.summary(appId: "org.example.Files").fraction, 0.2, accuracy: 1e-9)
        XCTAssertEqual(store.summary(appId: "org.example.Files").active, 1)
        _ = try store.pulse(name("a"))
        _ = try store.pulse(name("child"))
        XCTAssertTrue(store.summary().indeterminate)
        _ = try update("a", [("state", .string("paused"))])
        XCTAssertEqual(store.summary().state, "paused")
        _ = try store.fail(name("a"), message: "disk full")
        summary = store.summary()
        XCTAssertEqual(summary.state, "failed", "a lingering failure outranks the rest")
        XCTAssertEqual(summary.active, 1)
    }
}
