@testable import ProgressModel
@testable import ProgressCore
import ProgressTestSupport
import XCTest

/// Each combination rule of parents and children, one by one.
final class TaskTreeTests: XCTestCase {
    let clock = ManualClock()
    lazy var store = TaskStore(clock: clock)
    let job: ClientID = ":1.10"

    func name(_ text: String) -> TaskName { try! TaskName(text) }
    func task(_ text: String) -> ProgressTask { store.task(name(text))! }

    @discardableResult
    func start(_ text: String, _ pairs: [(String, OptionValue)] = []) throws -> [TaskChange] {
        try store.start(
            name(text), with: TaskUpdate.parse(pairs.map { (key: $0.0, value: $0.1) }, for: .start), caller: job)
    }

    func child(_ text: String, of parent: String = "all", _ pairs: [(String, OptionValue)] = []) throws {
        try start(text, [("parent", .string(parent))] + pairs)
    }

    /// A child that ended and starts again under another parent is the new parent's only.
    func testAChildStartedAgainUnderAnotherParentLeavesTheFormerOne() throws {
        try start("old")
        try start("new")
        try child("moved", of: "old", [("fraction", .double(0.5))])
        try child("stays", of: "old", [("fraction", .double(0.1))])
        _ = try store.finish(name("moved"))
        let changes = try start("moved", [("parent", .string("new")), ("fraction", .double(0.2))])
        XCTAssertEqual(
            changes.map(\.name), [name("moved"), name("old"), name("new")], "the former parent counts without it")
        XCTAssertEqual(task("old").fraction, 0.1, accuracy: 1e-12)
        XCTAssertEqual(task("new").fraction, 0.2, accuracy: 1e-12)
        _ = try store.finish(name("stays"))
        XCTAssertNoThrow(try store.finish(name("old")), "the moved child no longer holds the former parent running")
        // The former parent under the moved child makes no loop for a removal to walk.
        try child("old", of: "moved")
        _ = try store.remove(name("new"))
        XCTAssertEqual(store.sortedNames, [], "the tree under it went with it, each task once")
    }

    func testTheFractionIsTheWeightedMeanOfTheChildren() throws {
        try start("all")
        try child("a", [("fraction", .double(0.5))])
        try child("b", [("fraction", .double(0.25)), ("weight", .double(3))])
        XCTAssertEqual(task("all").fraction, (0.5 + 3 * 0.25) / 4, accuracy: 1e-12)
        let changes = try store.setFraction(name("a"), 1)
        XCTAssertEqual(changes.map(\.name), [name("a"), name("all")], "the child's change, then the parent's")
        XCTAssertEqual(task("all").fraction, (1 + 0.75) / 4, accuracy: 1e-12)
    }

    func testFinishedChildrenCountWholeAndIndeterminateOnesNothing() throws {
        try start("all")
        try child("a", [("indeterminate", .bool(true))])
        try child("b", [("fraction", .double(0.4))])
        XCTAssertFalse(task("all").indeterminate, "a determinate child keeps the parent determinate")
        XCTAssertEqual(task("all").fraction, 0.2, accuracy: 1e-12)
        _ = try store.finish(name("a"))
        XCTAssertEqual(task("all").fraction, 0.7, accuracy: 1e-12)
    }

    func testTheParentIsIndeterminateOnlyWhenEveryChildIs() throws {
        try start("all")
        try child("a", [("indeterminate", .bool(true))])
        try child("b", [("indeterminate", .bool(true))])
        XCTAssertTrue(task("all").indeterminate)
        _ = try store.setFraction(name("b"), 0.5)
        XCTAssertFalse(task("all").indeterminate)
    }

    func testUnitsAddUpOnlyWhenShared() throws {
        try start("all")
        try child("a", [("total", .uint64(10)), ("completed", .uint64(4)), ("unit", .string("files"))])
        try child("b", [("total", .uint64(30)), ("completed", .uint64(6)), ("unit", .string("files"))])
        XCTAssertEqual(task("all").completed, 10)
        XCTAssertEqual(task("all").total, 40)
        XCTAssertEqual(task("all").unit, "files")
        try child("c", [("total", .uint64(100)), ("unit", .string("bytes"))])
        XCTAssertEqual(task("all").total, 40, "mixed units: the sums stay as they were")
    }

    func testAFailedChildFailsTheParent() throws {
        try start("all")
        try child("a")
        try child("b")
        let changes = try store.fail(name("a"), message: "disk full")
        XCTAssertEqual(task("all").state, .failed)
        XCTAssertEqual(task("all").message, "child 'a' failed: disk full")
        XCTAssertTrue(changes.last!.isImmediate)
        XCTAssertEqual(task("b").state, .running, "siblings are the jobs' business")
    }

    func testUnderIgnoreAFailedChildNoLongerCounts() throws {
        try start("all", [("child-failure", .string("ignore"))])
        try child("a", [("fraction", .double(0.1))])
        try child("b", [("fraction", .double(0.9))])
        _ = try store.fail(name("a"), message: "skipped")
        XCTAssertEqual(task("all").state, .running)
        XCTAssertEqual(task("all").fraction, 0.9, accuracy: 1e-12)
    }

    func testACancelledChildNoLongerCounts() throws {
        try start("all")
        try child("a", [("fraction", .double(0.1))])
        try child("b", [("fraction", .double(0.5))])
        _ = try store.update(name("a"), with: TaskUpdate.parse([("state", .string("cancelled"))], for: .update))
        XCTAssertEqual(task("all").state, .running)
        XCTAssertEqual(task("all").fraction, 0.5, accuracy: 1e-12)
    }

    func testAPausedChildShowsTheParentPausedAndAStalledOneStalled() throws {
        try start("all")
        try child("a", [("stall-seconds", .uint64(5))])
        try child("b")
        _ = try store.update(name("b"), with: TaskUpdate.parse([("state", .string("paused"))], for: .update))
        XCTAssertEqual(task("all").state, .paused)
        XCTAssertEqual(task("all").ownState, .running)
        _ = try store.update(name("b"), with: TaskUpdate.parse([("state", .string("running"))], for: .update))
        XCTAssertEqual(task("all").state, .running)
        clock.advance(seconds: 5)
        _ = store.housekeeping()
        XCTAssertTrue(task("a").isStalled)
        XCTAssertTrue(task("all").isStalled)
    }

    func testChildrenAtWorkKeepTheParentAlive() throws {
        try start("all", [("lease-seconds", .uint64(60))])
        try child("a", [("lease-seconds", .uint64(60))])
        for step in 1...5 {
            clock.advance(seconds: 50)
            _ = try store.setFraction(name("a"), Double(step) / 10)
            _ = store.housekeeping()
        }
        XCTAssertEqual(task("all").state, .running)
        XCTAssertFalse(task("all").isStalled)
    }

    func testAParentsValuesCanNotBeSetDirectly() throws {
        try start("all")
        try child("a")
        assertError(try store.setFraction(name("all"), 0.5), "InvalidValue", "has children")
        assertError(try store.pulse(name("all")), "InvalidValue", "has children")
        XCTAssertNoThrow(
            try store.update(name("all"), with: TaskUpdate.parse([("title", .string("All"))], for: .update)))
    }

    func testParentsMustExistBeLiveAndNotTooDeep() throws {
        assertError(try child("orphan", of: "nobody"), "NoSuchTask", "parent 'nobody' does not exist")
        assertError(try child("orphan", of: String(repeating: "p", count: 201)), "InvalidName", "201 bytes")
        assertError(try child("orphan", of: "tab\there"), "InvalidName", "U+0009")
        try start("done")
        _ = try store.finish(name("done"))
        assertError(try child("late", of: "done"), "InvalidValue", "parent 'done' is finished")
        try start("level1")
        for level in 2...8 { try child("level\(level)", of: "level\(level - 1)") }
        assertError(try child("level9", of: "level8"), "LimitExceeded", "the limit is 8")
        assertError(try child("level1", of: "level8"), "InvalidValue", "can not be its own ancestor")
    }

    func testRemovingAParentRemovesItsChildrenDeepestFirst() throws {
        try start("all")
        try child("a")
        try child("a1", of: "a")
        let changes = try store.remove(name("all"))
        XCTAssertEqual(changes.map(\.name), [name("a1"), name("a"), name("all")])
        XCTAssertTrue(changes.allSatisfy { $0.kind == .removed })
        XCTAssertEqual(store.count, 0)
    }

    /// Issue 12: Finish on a parent whose child was at 20 % made it read finished and 100 %.
    func testAParentIsNotEndedWhileItsChildrenRun() throws {
        try start("all")
        try child("a")
        try child("b")
        _ = try store.setFraction(name("a"), 0.2)
        for (action, call) in [("finished", { _ = try self.store.finish(self.name("all")) }),
                               ("failed", { _ = try self.store.fail(self.name("all"), message: "no") })]
                as [(String, () throws -> Void)] {
            XCTAssertThrowsError(try call()) { error in
                guard case .notAllowed(let message)? = error as? ProgressError else { return XCTFail("\(error)") }
                XCTAssertEqual(
                    message,
                    "task 'all' can not be \(action) while 2 of its children run ('a', 'b'); "
                        + "finish or fail them first, or Remove it with them")
            }
        }
        XCTAssertEqual(store.task(name("all"))?.state, .running)
        _ = try store.finish(name("a"))
        _ = try store.finish(name("b"))
        _ = try store.finish(name("all"))
        XCTAssertEqual(store.task(name("all"))?.state, .finished)
    }

    func testAParentLingersWhileAChildIsLive() throws {
        try start("all", [("linger-seconds", .uint64(1))])
        try child("a")
        try child("b")
        _ = try store.fail(name("b"), message: "disk full")
        XCTAssertEqual(store.task(name("all"))?.state, .failed, "a failed child fails its parent")
        clock.advance(seconds: 5)
        _ = store.housekeeping()
        XCTAssertNotNil(store.task(name("all")))
        _ = try store.finish(name("a"))
        clock.advance(seconds: 60)
        _ = store.housekeeping()
        XCTAssertEqual(store.count, 0)
    }
}
