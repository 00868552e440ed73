@testable import ProgressModel
@testable import ProgressCore
import ProgressTestSupport
import XCTest

final class TaskRecordTests: XCTestCase {
    let clock = ManualClock()
    let job: ClientID = ":1.10"

    func name(_ text: String) -> TaskName { try! TaskName(text) }

    func populated() throws -> TaskStore {
        let store = TaskStore(clock: clock)
        func start(_ text: String, _ pairs: [(String, OptionValue)]) throws {
            _ = try store.start(
                name(text), with: TaskUpdate.parse(pairs.map { (key: $0.0, value: $0.1) }, for: .start), caller: job)
        }
        try start("all", [("title", .string("Everything")), ("cancellable", .bool(true))])
        try start("copy", [("parent", .string("all")), ("total", .uint64(8)), ("completed", .uint64(2)),
                           ("unit", .string("files")), ("weight", .double(2))])
        try start("bound", [("lifetime", .string("caller")), ("pausable", .bool(true))])
        try start("done", [("fraction", .double(0.3))])
        _ = try store.finish(name("done"))
        _ = try store.requestCancel(name("all"))
        return store
    }

    func testRecordsRestoreEveryValue() throws {
        let store = try populated()
        let restored = TaskStore(clock: clock)
        XCTAssertEqual(restored.restore(store.allRecords), [])
        XCTAssertEqual(restored.allRecords, store.allRecords)
        XCTAssertEqual(restored.task(name("all"))?.fraction, 0.25)
        XCTAssertEqual(restored.task(name("all"))?.hasChildren, true)
        XCTAssertEqual(restored.task(name("done"))?.state, .finished)
    }

    func testARestoredCallerTaskIsBoundAgainToItsConnectionAndProcess() throws {
        let store = TaskStore(clock: clock)
        let caller = ClientID(":1.42", identity: CallerIdentity(owner: .host, processID: 4242, processStart: 987_654))
        _ = try store.start(
            name("bound"), with: TaskUpdate.parse([(key: "lifetime", value: .string("caller"))], for: .start),
            caller: caller)
        let record = try XCTUnwrap(store.record(of: name("bound")))
        XCTAssertEqual(record.fields[TaskBinding.nameKey], .string(":1.42"))
        XCTAssertEqual(record.fields[TaskBinding.processKey], .integer(4242))
        XCTAssertEqual(record.fields[TaskBinding.startKey], .integer(987_654))
        let restored = TaskStore(clock: clock)
        XCTAssertEqual(restored.restore([record]), [])
        XCTAssertEqual(restored.task(name("bound"))?.isStalled, false)
        XCTAssertEqual(restored.task(name("bound"))?.boundConnection?.identity.processStart, 987_654)
        XCTAssertEqual(restored.task(name("bound"))?.boundConnection?.identity.processID, 4242)
        let failed = restored.connectionClosed(":1.42")
        XCTAssertEqual(failed.first?.task.state, .failed, "its connection's departure fails it, as before the restart")
        XCTAssertNil(
            restored.record(of: name("bound"))?.fields[TaskBinding.nameKey], "an ended task is bound to nothing")
    }

    func testABindingOfTheWrongTypeSkipsTheRecord() throws {
        var record = try XCTUnwrap(try populated().record(of: name("bound")))
        record.fields[TaskBinding.processKey] = .string("4242")
        let restored = TaskStore(clock: clock)
        XCTAssertEqual(restored.restore([record]), ["skipped task 'bound': callerPid of the wrong type"])
    }

    func testARestoredCallerTaskFromAnOlderJournalIsStalledUntilItsJobStartsItAgain() throws {
        let restored = TaskStore(clock: clock)
        let records = try populated().allRecords.map { record in
            var older = record
            for key in [TaskBinding.nameKey, TaskBinding.processKey, TaskBinding.startKey] { older.fields[key] = nil }
            return older
        }
        _ = restored.restore(records)
        XCTAssertEqual(restored.task(name("bound"))?.isStalled, true)
        XCTAssertEqual(restored.task(name("bound"))?.state, .running)
        _ = try restored.setFraction(name("bound"), 0.5)
        XCTAssertEqual(restored.task(name("bound"))?.isStalled, true, "an update is not the job coming back")
        _ = try restored.start(name("bound"), with: TaskUpdate(), caller: ":1.77")
        XCTAssertEqual(restored.task(name("bound"))?.isStalled, false)
        XCTAssertEqual(restored.connectionClosed(":1.77").count, 1, "bound to the new connection")
    }

    func testTimersStartAfreshAfterARestore() throws {
        let restored = TaskStore(clock: clock)
        _ = restored.restore(try populated().allRecords)
        clock.advance(seconds: 59)
        _ = restored.housekeeping()
        XCTAssertNotNil(restored.task(name("done")), "linger counts from the restart")
        clock.advance(seconds: 1)
        _ = restored.housekeeping()
        XCTAssertNil(restored.task(name("done")))
    }

    func testDamagedRecordsAreSkippedOrRepaired() throws {
        var records = try populated().allRecords
        records[0].fields["name"] = .string("")
        records[1].fields["fraction"] = .double(.nan)
        let looped = records[2]
        records[2].fields["parent"] = .string(looped.name)
        let restored = TaskStore(clock: clock)
        let problems = restored.restore(records)
        XCTAssertEqual(problems.count, 3, "\(problems)")
        XCTAssertTrue(problems.contains { $0.contains("invalid name") })
        XCTAssertTrue(problems.contains { $0.contains("out of range") })
        XCTAssertTrue(problems.contains { $0.contains("parent loop") })
        XCTAssertNil(restored.task(name(looped.name))?.parent)
    }
}
