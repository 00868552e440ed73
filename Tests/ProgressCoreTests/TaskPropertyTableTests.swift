@testable import ProgressModel
@testable import ProgressCore
import ProgressTestSupport
import XCTest

/// A property is declared once, in TaskPropertyTable; its value, its diff and its record
/// follow from that entry alone.
final class TaskPropertyTableTests: XCTestCase {
    let clock = ManualClock()

    func task(_ text: String, title: String = "") throws -> ProgressTask {
        let store = TaskStore(clock: clock)
        var update = TaskUpdate()
        update.title = title
        _ = try store.start(TaskName(text), with: update, caller: ":1.1")
        return store.task(try TaskName(text))!
    }

    func testTheStandardTableIsTaskPropertyInOrder() {
        // The cases name the table's first rows; a row no code names needs no case.
        XCTAssertEqual(
            TaskPropertyTable.standard.descriptors.prefix(TaskProperty.allCases.count).map(\.name),
            TaskProperty.allCases.map(\.name))
        XCTAssertEqual(TaskProperties.all.members, TaskProperty.allCases)
    }

    func testMemberIndicesAreTheSetBitsInOrder() {
        XCTAssertEqual(Array(TaskProperties(rawValue: 1 << 31 | 1 << 2 | 1).indices), [0, 2, 31])
        XCTAssertEqual(Array(TaskProperties([]).indices), [])
        XCTAssertEqual(
            Array(TaskPropertyTable.standard.all.indices), Array(TaskPropertyTable.standard.descriptors.indices))
    }

    /// TestOnlyProperty's `Priority` row, which no field holds: its option is read with
    /// its checks by the table that declares it, and by no other.
    func testATestOnlyRowsOptionIsParsedWithItsChecks() throws {
        let table = TestOnlyProperty.table
        XCTAssertTrue(table.startKeys.contains("priority") && table.updateKeys.contains("priority"))
        XCTAssertFalse(TaskUpdate.startKeys.contains("priority"), "only the table that declares it")
        XCTAssertThrowsError(try TaskUpdate.parse([("priority", .uint64(5))], for: .start)) { error in
            XCTAssertEqual((error as? ProgressError)?.name, "UnknownOption")
        }
        XCTAssertThrowsError(
            try TaskUpdate.parse([("priority", .uint64(12))], for: .update, properties: table)) { error in
            XCTAssertEqual((error as? ProgressError)?.name, "InvalidValue")
            XCTAssertEqual((error as? ProgressError)?.message, "priority 12 is outside 0...9")
        }
        XCTAssertThrowsError(
            try TaskUpdate.parse([("priority", .string("high"))], for: .start, properties: table)) { error in
            XCTAssertEqual((error as? ProgressError)?.name, "InvalidValue")
            XCTAssertTrue((error as? ProgressError)?.message.contains("got type 's'") ?? false, "\(error)")
        }
        let update = try TaskUpdate.parse([("priority", .int32(3))], for: .start, properties: table)
        XCTAssertEqual(update[TestOnlyProperty.row], .uint64(3))
        XCTAssertNotEqual(update, TaskUpdate())
    }

    /// The store applies the row's value, the diff gives its bit and the texts it declares,
    /// and the table reads the value back; a task that never set it reads the initial value.
    func testATestOnlyRowFlowsThroughTheStoreAndTheDiff() throws {
        let table = TestOnlyProperty.table
        let index = try XCTUnwrap(table.index(named: "Priority"))
        let bit = TaskProperties(index: index)
        let store = TaskStore(clock: clock, properties: table)
        let name = try TaskName("copy")
        let started = try store.start(
            name, with: TaskUpdate.parse([("priority", .uint64(5))], for: .start, properties: table), caller: ":1.1")
        XCTAssertTrue(started[0].properties.isSuperset(of: bit), "a new task has every property of its table")
        XCTAssertEqual(
            table.value(at: index, of: try XCTUnwrap(store.task(name)), describing: PlainTexts()), .uint64(5))
        _ = try store.start(TaskName("plain"), with: TaskUpdate(), caller: ":1.1")
        XCTAssertEqual(
            table.value(at: index, of: try XCTUnwrap(store.task(TaskName("plain"))), describing: PlainTexts()),
            .uint64(0))

        let changed = try store.update(
            name, with: TaskUpdate.parse([("priority", .uint64(7))], for: .update, properties: table))
        XCTAssertTrue(
            changed[0].properties.isSuperset(of: bit.union([.accessibleText, .serial])), "\(changed[0].properties)")
        XCTAssertFalse(changed[0].properties.contains(.title))
        XCTAssertTrue(try store.update(
            name, with: TaskUpdate.parse([("priority", .uint64(7))], for: .update, properties: table)).isEmpty)
        let titled = try store.update(
            name, with: TaskUpdate.parse([("title", .string("Copy"))], for: .update, properties: table))
        XCTAssertTrue(titled[0].properties.isDisjoint(with: bit), "an update without the key leaves the value")
        XCTAssertEqual(
            table.value(at: index, of: try XCTUnwrap(store.task(name)), describing: PlainTexts()), .uint64(7))
    }

    /// A bridge builds its TaskUpdate itself: it sets the row's value by the row.
    func testABridgeSetsATestOnlyRowsValue() throws {
        let table = TestOnlyProperty.table
        let door = TaskFrontDoor(store: TaskStore(clock: clock, properties: table))
        let name = try TaskName("job")
        var update = TaskUpdate()
        update.title = "Job"
        update[TestOnlyProperty.row] = .uint64(2)
        XCTAssertNil(door.perform(.start(name, update), by: .bridge("test", ":1.1")).error)
        let index = try XCTUnwrap(table.index(named: "Priority"))
        XCTAssertEqual(
            table.value(at: index, of: try XCTUnwrap(door.store.task(name)), describing: PlainTexts()), .uint64(2))
    }

    /// The record keeps the row's value under its key once it is set, and a restore puts it back.
    func testATestOnlyRowIsRecordedAndRestored() throws {
        let table = TestOnlyProperty.table
        let store = TaskStore(clock: clock, properties: table)
        let name = try TaskName("copy")
        _ = try store.start(
            name, with: TaskUpdate.parse([("priority", .uint64(7))], for: .start, properties: table), caller: ":1.1")
        _ = try store.start(TaskName("plain"), with: TaskUpdate(), caller: ":1.1")
        let record = try XCTUnwrap(store.record(of: name))
        XCTAssertEqual(record.fields["priority"], .integer(7))
        XCTAssertNil(try XCTUnwrap(store.record(of: TaskName("plain"))).fields["priority"], "never set, never written")

        let decoded = try JSONDecoder().decode([TaskRecord].self, from: JSONEncoder().encode(store.allRecords))
        let restored = TaskStore(clock: clock, properties: table)
        XCTAssertEqual(restored.restore(decoded), [])
        XCTAssertEqual(restored.allRecords, store.allRecords)
        let index = try XCTUnwrap(table.index(named: "Priority"))
        XCTAssertEqual(
            table.value(at: index, of: try XCTUnwrap(restored.task(name)), describing: PlainTexts()), .uint64(7))

        var wrong = record
        wrong.fields["priority"] = .string("high")
        XCTAssertEqual(
            TaskStore(clock: clock, properties: table).restore([wrong]),
            ["skipped task 'copy': priority of the wrong type"])
    }

    func testATextFollowsTheRowsThatDeclareIt() throws {
        let short = try task("copy", title: "ab")
        let long = try task("copy", title: "abcd")
        let changed = TaskPropertyTable.standard.differences(short, long)
        XCTAssertEqual(changed, [.title, .accessibleText])
        XCTAssertTrue(TaskPropertyTable.standard.differences(short, short).isEmpty)
    }

    func testRecordsSurviveJSON() throws {
        let store = TaskStore(clock: clock)
        var update = TaskUpdate()
        update.title = "Copy"
        update.total = UInt64.max
        update.completed = UInt64.max - 1
        update.unit = "bytes"
        update.weight = 2
        _ = try store.start(TaskName("copy"), with: update, caller: ":1.1")
        let record = try XCTUnwrap(store.record(of: TaskName("copy")))
        let decoded = try JSONDecoder().decode(TaskRecord.self, from: JSONEncoder().encode(record))
        let restored = TaskStore(clock: clock)
        XCTAssertEqual(restored.restore([decoded]), [])
        XCTAssertEqual(
            restored.allRecords, store.allRecords, "every value, UInt64.max and the weight 2.0 written as 2 too")
    }

    func testAValueOfTheWrongTypeSkipsTheRecord() throws {
        var record = TaskPropertyTable.standard.record(of: try task("copy"))
        record.fields["total"] = .string("many")
        let restored = TaskStore(clock: clock)
        XCTAssertEqual(restored.restore([record]), ["skipped task 'copy': total of the wrong type"])
        XCTAssertEqual(restored.count, 0)
    }
}
