@testable import ProgressModel
@testable import ProgressCore
import ProgressTestSupport
import XCTest

final class TaskStoreTests: XCTestCase {
    let clock = ManualClock()
    lazy var store = TaskStore(clock: clock)
    let job: ClientID = ":1.10"
    let script: ClientID = ":1.11"

    func name(_ text: String = "backup") -> TaskName { try! TaskName(text) }

    func options(_ pairs: [(String, OptionValue)], for call: TaskUpdate.Call = .start) throws -> TaskUpdate {
        try TaskUpdate.parse(pairs.map { (key: $0.0, value: $0.1) }, for: call)
    }

    @discardableResult
    func start(
        _ text: String = "backup", _ pairs: [(String, OptionValue)] = [], caller: ClientID? = nil
    ) throws -> [TaskChange] {
        try store.start(name(text), with: options(pairs), caller: caller ?? job)
    }

    func task(_ text: String = "backup") -> ProgressTask { store.task(name(text))! }

    func testStartCreatesARunningTask() throws {
        let change = try start("backup", [("title", .string("Backup")), ("total", .uint64(10))])
        XCTAssertEqual(change.own.kind, .created)
        XCTAssertTrue(change.own.isImmediate)
        XCTAssertEqual(task().state, .running)
        XCTAssertEqual(task().title, "Backup")
        XCTAssertEqual(task().created, clock.wallMicros)
        XCTAssertEqual(store.count, 1)
    }

    func testStartAgainReattachesAndAppliesOptions() throws {
        try start()
        _ = try store.setFraction(name(), 0.4)
        clock.advance(seconds: 1)
        let change = try start("backup", [("title", .string("Again"))], caller: ":1.99")
        XCTAssertEqual(change.own.kind, .updated)
        XCTAssertEqual(
            change.own.properties, [.title, .serial, .updated, .accessibleText], "the spoken text names the title")
        XCTAssertEqual(task().fraction, 0.4)
        XCTAssertEqual(store.count, 1)
    }

    func testStartAfterAnOutcomeBeginsAfreshWithAGrowingSerial() throws {
        try start("backup", [("total", .uint64(4))])
        _ = try store.finish(name())
        let finishedSerial = task().serial
        clock.advance(seconds: 5)
        let change = try start()
        XCTAssertEqual(change.own.kind, .updated)
        XCTAssertTrue(change.own.isImmediate)
        XCTAssertEqual(task().state, .running)
        XCTAssertEqual(task().fraction, 0)
        XCTAssertEqual(task().total, 0)
        XCTAssertGreaterThan(task().serial, finishedSerial)
        XCTAssertEqual(task().created, clock.wallMicros)
    }

    func testUnitsDriveTheFraction() throws {
        try start("copy", [("total", .uint64(8)), ("unit", .string("files"))])
        _ = try store.update(name("copy"), with: options([("completed", .uint64(2))], for: .update))
        XCTAssertEqual(task("copy").fraction, 0.25)
        _ = try store.setFraction(name("copy"), 0.8)
        XCTAssertEqual(task("copy").completed, 6)  // 6.4 rounded down
        _ = try store.update(name("copy"), with: options([("total", .uint64(12))], for: .update))
        XCTAssertEqual(task("copy").fraction, 0.5)
    }

    func testCompletedBeyondTotalIsRefusedAndNothingChanges() throws {
        try start("copy", [("total", .uint64(8)), ("completed", .uint64(3))])
        let before = task("copy")
        assertError(
            try store.update(name("copy"), with: options([("completed", .uint64(9))], for: .update)),
            "InvalidValue", "completed 9 is more than total 8")
        assertError(
            try store.update(name("copy"), with: options([("total", .uint64(2))], for: .update)),
            "InvalidValue", "completed 3 is more than total 2")
        assertError(
            try store.update(
                name("copy"), with: options([("fraction", .double(0.5)), ("completed", .uint64(4))], for: .update)),
            "InvalidValue", "not both")
        XCTAssertEqual(task("copy").completed, before.completed)
        XCTAssertEqual(task("copy").serial, before.serial)
    }

    func testCountsWithoutATotalLeaveTheFractionAlone() throws {
        try start("scan", [("indeterminate", .bool(true))])
        _ = try store.update(name("scan"), with: options([("completed", .uint64(40))], for: .update))
        XCTAssertTrue(task("scan").indeterminate)
        XCTAssertEqual(task("scan").completed, 40)
    }

    func testIndeterminateTasksShowNoValue() throws {
        try start("dl", [("fraction", .double(0.3))])
        let change = try store.pulse(name("dl"))
        XCTAssertTrue(change.own.isImmediate)
        XCTAssertTrue(task("dl").indeterminate)
        XCTAssertEqual(task("dl").fraction, 0)
        XCTAssertNil(task("dl").wholePercent)
        // A value makes it determinate again.
        let back = try store.setFraction(name("dl"), 0.6)
        XCTAssertTrue(back.own.isImmediate)
        XCTAssertTrue(back.own.properties.contains(.indeterminate))
        XCTAssertEqual(task("dl").fraction, 0.6)
        // Unless the same call says otherwise.
        _ = try store.update(
            name("dl"), with: options([("fraction", .double(0.7)), ("indeterminate", .bool(true))], for: .update))
        XCTAssertTrue(task("dl").indeterminate)
    }

    func testEveryPulseCounts() throws {
        try start("dl", [("indeterminate", .bool(true))])
        let serial = task("dl").serial
        clock.advance(micros: 5)
        let change = try store.pulse(name("dl"))
        XCTAssertEqual(change.own.properties, [.serial, .updated])
        XCTAssertFalse(change.own.isImmediate)
        XCTAssertEqual(task("dl").serial, serial + 1)
    }

    func testAChangeToTheSameValuesIsNoChange() throws {
        try start()
        _ = try store.setFraction(name(), 0.5)
        let serial = task().serial
        let change = try store.setFraction(name(), 0.5)
        XCTAssertTrue(change.isEmpty)
        XCTAssertEqual(task().serial, serial)
    }

    func testFinishCompletesADeterminateTask() throws {
        try start("copy", [("total", .uint64(10)), ("completed", .uint64(4))])
        let change = try store.finish(name("copy"))
        XCTAssertTrue(change.own.isImmediate)
        XCTAssertEqual(task("copy").state, .finished)
        XCTAssertEqual(task("copy").fraction, 1)
        XCTAssertEqual(task("copy").completed, 10)
        XCTAssertEqual(task("copy").wholePercent, 100)
        XCTAssertTrue(try store.finish(name("copy")).isEmpty, "finishing again is harmless")
        assertError(try store.fail(name("copy"), message: "late"), "InvalidValue", "is finished")
        assertError(try store.setFraction(name("copy"), 0.2), "InvalidValue", "is finished")
        assertError(try store.pulse(name("copy")), "InvalidValue", "can not be pulsed")
    }

    func testFailKeepsTheMessage() throws {
        try start()
        _ = try store.fail(name(), message: "disk full")
        XCTAssertEqual(task().state, .failed)
        XCTAssertEqual(task().message, "disk full")
        XCTAssertTrue(try store.fail(name(), message: "disk full").isEmpty)
        assertError(try store.fail(name(), message: "other"), "InvalidValue", "is failed")
        assertError(try store.finish(name()), "InvalidValue", "is failed")
        assertError(
            try store.fail(name(), message: String(repeating: "m", count: 4097)), "LimitExceeded", "4097 bytes")
    }

    func testRequestedStateTransitions() throws {
        try start()
        func request(_ state: String) throws -> [TaskChange] {
            try store.update(name(), with: options([("state", .string(state))], for: .update))
        }
        XCTAssertTrue(try request("paused").own.isImmediate)
        XCTAssertEqual(task().state, .paused)
        XCTAssertNoThrow(try store.setFraction(name(), 0.1), "a paused task still takes values")
        XCTAssertEqual(try request("running").own.properties.contains(.state), true)
        XCTAssertEqual(try request("cancelled").own.properties.contains(.state), true)
        assertError(try request("running"), "InvalidValue", "is cancelled")
    }

    func testUnknownTasks() {
        assertError(try store.setFraction(name("ghost"), 0.1), "NoSuchTask", "'ghost'")
        assertError(try store.remove(name("ghost")), "NoSuchTask", "'ghost'")
        assertError(try store.finish(name("ghost")), "NoSuchTask", "'ghost'")
    }

    func testRemoveDropsTheTaskInAnyState() throws {
        try start()
        _ = try store.finish(name())
        let change = try store.remove(name())
        XCTAssertEqual(change.own.kind, .removed)
        XCTAssertNil(store.task(name()))
        XCTAssertEqual(store.count, 0)
    }

    func testACallerTaskFailsWhenItsConnectionCloses() throws {
        try start("copy", [("lifetime", .string("caller"))], caller: job)
        try start("done", [("lifetime", .string("caller"))], caller: job)
        _ = try store.finish(name("done"))
        let changes = store.connectionClosed(job)
        XCTAssertEqual(changes.map(\.name), [name("copy")])
        XCTAssertTrue(changes[0].isImmediate)
        XCTAssertEqual(task("copy").state, .failed)
        XCTAssertTrue(task("copy").message.contains("owner went away: connection :1.10 closed"), task("copy").message)
        XCTAssertEqual(task("done").state, .finished, "an outcome is never rewritten")
    }

    func testLeaseAndPersistentTasksOutliveTheirConnection() throws {
        try start("script", caller: script)
        try start("kept", [("lifetime", .string("persistent"))], caller: script)
        _ = try store.setFraction(name("script"), 0.5)
        XCTAssertTrue(store.connectionClosed(script).isEmpty)
        XCTAssertEqual(task("script").state, .running)
        XCTAssertEqual(task("kept").state, .running)
    }

    func testStartingACallerTaskFromAnotherConnectionRebindsIt() throws {
        try start("copy", [("lifetime", .string("caller"))], caller: job)
        try start("copy", caller: ":1.50")
        XCTAssertEqual(task("copy").lifetime, .caller, "a re-attach keeps the lifetime")
        XCTAssertTrue(store.connectionClosed(job).isEmpty, "the old connection no longer holds it")
        XCTAssertEqual(store.connectionClosed(":1.50").count, 1)
    }

    func testCapsPerCallerAndInAll() throws {
        var limits = Limits()
        limits.maxTasksPerCaller = 2
        limits.maxTasks = 3
        let store = TaskStore(clock: clock, limits: limits)
        _ = try store.start(name("a"), with: TaskUpdate(), caller: job)
        _ = try store.start(name("b"), with: TaskUpdate(), caller: job)
        assertError(
            try store.start(name("c"), with: TaskUpdate(), caller: job), "LimitExceeded",
            "connection :1.10 has started 2 tasks")
        _ = try store.start(name("c"), with: TaskUpdate(), caller: script)
        assertError(try store.start(name("d"), with: TaskUpdate(), caller: ":1.77"), "LimitExceeded", "the limit is 3")
        _ = try store.remove(name("a"))
        XCTAssertNoThrow(
            try store.start(name("d"), with: TaskUpdate(), caller: job), "removal frees the caller's share")
    }

    /// 64 connections of one process are one process; a sandboxed app's processes are one app;
    /// and a charge lasts as long as the task, not the connection.
    func testCapsCountPerProcessAndPerSandboxedAppNotPerConnection() throws {
        var limits = Limits()
        limits.maxTasksPerCaller = 2
        let store = TaskStore(clock: clock, limits: limits)
        let host = CallerIdentity(owner: .host, processID: 4242)
        _ = try store.start(name("a"), with: TaskUpdate(), caller: ClientID(":1.1", identity: host))
        _ = try store.start(name("b"), with: TaskUpdate(), caller: ClientID(":1.2", identity: host))
        _ = store.connectionClosed(ClientID(":1.1"))
        assertError(
            try store.start(name("c"), with: TaskUpdate(), caller: ClientID(":1.3", identity: host)), "LimitExceeded",
            "process 4242 has started 2 tasks; the limit per process (a sandboxed app is one) is 2")
        _ = try store.start(
            name("c"), with: TaskUpdate(),
            caller: ClientID(":1.4", identity: CallerIdentity(owner: .host, processID: 7)))
        let app = TaskOwner.flatpak("org.example.App")
        _ = try store.start(
            name("d"), with: TaskUpdate(),
            caller: ClientID(":1.5", identity: CallerIdentity(owner: app, processID: 1)))
        _ = try store.start(
            name("e"), with: TaskUpdate(),
            caller: ClientID(":1.6", identity: CallerIdentity(owner: app, processID: 2)))
        assertError(
            try store.start(
                name("f"), with: TaskUpdate(),
                caller: ClientID(":1.7", identity: CallerIdentity(owner: app, processID: 3))),
            "LimitExceeded", "the Flatpak app 'org.example.App' has started 2 tasks")
        XCTAssertEqual(store.task(name("d"))?.owner, app)
    }

    func testLabelsRoundDownAndOnlyAFinishedTaskReadsAHundred() throws {
        try start()
        for (fraction, percent) in [(0.0, 0), (0.29, 29), (0.57, 57), (0.999, 99), (1.0, 99)] {
            _ = try store.setFraction(name(), fraction)
            XCTAssertEqual(task().wholePercent, percent, "\(fraction)")
        }
        _ = try store.finish(name())
        XCTAssertEqual(task().wholePercent, 100)
    }

    func testTheLabelChangesOnlyWithTheWholePercent() throws {
        try start()
        XCTAssertTrue(try store.setFraction(name(), 0.421).own.properties.contains(.label))
        XCTAssertFalse(try store.setFraction(name(), 0.425).own.properties.contains(.label))
    }

    func testUpdatesFasterThanTheSignalRateAreDetected() throws {
        try start()
        let rate = store.limits.maxSignalsPerSecond
        for step in 1...rate {
            clock.advance(micros: 1_000)
            _ = try store.setFraction(name(), Double(step) / 1000)
        }
        XCTAssertFalse(task().updatesFrequently)
        clock.advance(micros: 1_000)
        let change = try store.setFraction(name(), 0.5)
        XCTAssertTrue(change.own.properties.contains(.updatesFrequently))
        XCTAssertTrue(task().updatesFrequently)
    }

    func testSlowUpdatesAreNotFrequent() throws {
        try start()
        for step in 1...50 {
            clock.advance(seconds: 0.2)
            _ = try store.setFraction(name(), Double(step) / 100)
        }
        XCTAssertFalse(task().updatesFrequently)
        _ = try store.update(name(), with: options([("updates-frequently", .bool(true))], for: .update))
        XCTAssertTrue(task().updatesFrequently, "the job may say so itself")
    }
}

extension Array where Element == TaskChange {
    /// The change to the task the call named, which comes first; an empty one if there is none.
    var own: TaskChange {
        let none = try! TaskName("none")
        return first ?? TaskChange(
            name: none, kind: .updated, properties: [], isImmediate: false,
            task: ProgressTask(name: none, caller: ":1.1", wallMicros: 0, monotonicMicros: 0, limits: Limits()))
    }
}
