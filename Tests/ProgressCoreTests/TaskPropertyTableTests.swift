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
        XCTAssertEqual(TaskPropertyTable.standard.descriptors.map(\.name), TaskProperty.allCases.map(\.name))
        XCTAssertEqual(TaskProperties.all.members, TaskProperty.allCases)
    }

    /// A property only a test knows: the length of the title, kept in the record.
    func testAPropertyAddedToATableFlowsToTheDiffAndTheRecord() throws {
        let titleLength = TaskPropertyDescriptor(
            "TitleLength", { $0.title.utf8.count }, as: { .uint64(UInt64($0)) },
            persisted: TaskRecordField("titleLength", save: { .integer(Int64($0.title.utf8.count)) }) { _, _ in true })
        let spoken = TaskPropertyDescriptor(
            "Spoken", read: { task, _ in .string("\(task.title) (\(task.title.utf8.count))") },
            change: .composed(of: ["TitleLength"]))
        let table = TaskPropertyTable(descriptors: TaskPropertyTable.standard.descriptors + [titleLength, spoken])
        let lengthBit = TaskProperties(rawValue: 1 << UInt32(table.index(named: "TitleLength")!))
        let spokenBit = TaskProperties(rawValue: 1 << UInt32(table.index(named: "Spoken")!))

        let short = try task("copy", title: "ab")
        let long = try task("copy", title: "abcd")
        let changed = table.differences(short, long)
        XCTAssertTrue(changed.contains(lengthBit))
        XCTAssertTrue(changed.contains(spokenBit), "a composed property follows what it is made of")
        XCTAssertTrue(changed.contains(.title))
        XCTAssertFalse(table.differences(short, short).contains(lengthBit))
        XCTAssertEqual(table.value(at: table.index(named: "Spoken")!, of: long, describing: NoTexts()), .string("abcd (4)"))

        XCTAssertEqual(table.record(of: long).fields["titleLength"], .integer(4))
        XCTAssertNil(TaskPropertyTable.standard.record(of: long).fields["titleLength"], "only the table that declares it")
        XCTAssertTrue(table.all.isSuperset(of: lengthBit.union(spokenBit)))
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
