@testable import ProgressCore
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
        XCTAssertEqual(TaskPropertyTable.standard.descriptors.prefix(TaskProperty.allCases.count).map(\.name), TaskProperty.allCases.map(\.name))
        XCTAssertEqual(TaskProperties.all.members, TaskProperty.allCases)
    }

    func testMemberIndicesAreTheSetBitsInOrder() {
        XCTAssertEqual(Array(TaskProperties(rawValue: 1 << 31 | 1 << 2 | 1).indices), [0, 2, 31])
        XCTAssertEqual(Array(TaskProperties([]).indices), [])
        XCTAssertEqual(Array(TaskPropertyTable.standard.all.indices), Array(TaskPropertyTable.standard.descriptors.indices))
    }

    /// A property only a test knows, declared by one row: `Linger`, set with a `linger`
    /// option by Start and Update, kept as `linger`, said by AccessibleText. Nothing else is
    /// edited, and the option, the store, the diff, the record and the value all follow.
    static let lingerRow = TaskPropertyDescriptor(
        "Linger", { $0.lingerSeconds }, as: { .uint64(UInt64($0)) }, texts: [.accessibleText],
        persisted: .count("linger", \.lingerSeconds),
        option: TaskOption("linger", read: { $0.lingerSeconds = try $1.whole(in: 0...UInt32(60)) },
                           apply: { if let seconds = $0.lingerSeconds { $1.lingerSeconds = seconds } }))

    func testATestOnlyRowFlowsThroughParsingTheStoreTheDiffAndTheRecord() throws {
        let table = TaskPropertyTable(descriptors: TaskPropertyTable.standard.descriptors + [Self.lingerRow])
        let index = try XCTUnwrap(table.index(named: "Linger"))
        let bit = TaskProperties(index: index)
        XCTAssertTrue(table.startKeys.contains("linger") && table.updateKeys.contains("linger"))
        XCTAssertFalse(TaskUpdate.startKeys.contains("linger"), "only the table that declares it")
        XCTAssertThrowsError(try TaskUpdate.parse([("linger", .uint64(5))], for: .start))
        XCTAssertThrowsError(try TaskUpdate.parse([("linger", .uint64(61))], for: .start, properties: table)) { error in
            XCTAssertEqual((error as? ProgressError)?.name, "InvalidValue")
        }

        let store = TaskStore(clock: clock, properties: table)
        let name = try TaskName("copy")
        let started = try store.start(name, with: TaskUpdate.parse([("linger", .uint64(5))], for: .start, properties: table), caller: ":1.1")
        XCTAssertTrue(started[0].properties.isSuperset(of: bit), "a new task has every property of its table")
        XCTAssertEqual(table.value(at: index, of: try XCTUnwrap(store.task(name)), describing: NoTexts()), .uint64(5))

        let changed = try store.update(name, with: TaskUpdate.parse([("linger", .uint64(7))], for: .update, properties: table))
        XCTAssertTrue(changed[0].properties.isSuperset(of: bit.union([.accessibleText, .serial])), "\(changed[0].properties)")
        XCTAssertFalse(changed[0].properties.contains(.title))
        XCTAssertTrue(try store.update(name, with: TaskUpdate.parse([("linger", .uint64(7))], for: .update, properties: table)).isEmpty)

        let record = try XCTUnwrap(store.record(of: name))
        XCTAssertEqual(record.fields["linger"], .integer(7))
        var saved = record
        saved.fields["lingerSeconds"] = nil
        let restored = TaskStore(clock: clock, properties: table)
        XCTAssertEqual(restored.restore([saved]), [])
        XCTAssertEqual(restored.task(name)?.lingerSeconds, 7, "restored from the row's own key")
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
        XCTAssertEqual(restored.allRecords, store.allRecords, "every value, UInt64.max and the weight 2.0 written as 2 too")
    }

    func testAValueOfTheWrongTypeSkipsTheRecord() throws {
        var record = TaskPropertyTable.standard.record(of: try task("copy"))
        record.fields["total"] = .string("many")
        let restored = TaskStore(clock: clock)
        XCTAssertEqual(restored.restore([record]), ["skipped task 'copy': total of the wrong type"])
        XCTAssertEqual(restored.count, 0)
    }

    struct NoTexts: TaskDescribing {
        func label(wholePercent: Int) -> String { "\(wholePercent)" }
        func detail(of task: ProgressTask) -> String { "" }
        func accessibleText(of task: ProgressTask) -> String { "" }
        func summary(_ summary: AnnouncementSummary) -> String { "" }
        func burst(_ burst: NotificationBursts.Burst) -> (title: String, body: String) { ("", "") }
    }
}
