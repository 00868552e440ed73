@testable import ProgressModel
@testable import ProgressCore
import ProgressTestSupport
import XCTest

/// Changes(since) on a fake clock: what a poller gets is what changed after its last poll.
final class ChangeIndexTests: XCTestCase {
    let clock = ManualClock()
    lazy var door = TaskFrontDoor(store: TaskStore(clock: clock), firstSequence: 1_000)
    lazy var index = ChangeIndex(firstSequence: 1_000, maxRemovals: 3)

    func name(_ text: String) -> TaskName { try! TaskName(text) }

    func run(_ command: TaskCommand) {
        let outcome = door.perform(command, by: .client(":1.1"))
        XCTAssertNil(outcome.error)
        index.publish(outcome.batch)
    }

    func fraction(_ text: String, _ value: Double) { run(.setFraction(name(text), value)) }

    func changed(since: UInt64) throws -> [String: TaskProperties] {
        guard case .changes(let tasks, _) = try index.changes(since: since) else { XCTFail("a reset"); return [:] }
        return Dictionary(uniqueKeysWithValues: tasks.map { ($0.name.text, $0.properties) })
    }

    func removed(since: UInt64) throws -> [String] {
        guard case .changes(_, let removed) = try index.changes(since: since) else { XCTFail("a reset"); return [] }
        return removed.map(\.text)
    }

    func testAChangeAfterSinceAppearsAndOneBeforeDoesNot() throws {
        run(.start(name("a"), TaskUpdate()))
        run(.start(name("b"), TaskUpdate()))
        let serial = index.lastSequence
        fraction("a", 0.5)
        let changes = try changed(since: serial)
        XCTAssertEqual(Array(changes.keys), ["a"])
        XCTAssertTrue(changes["a"]!.contains(.fraction))
        XCTAssertFalse(changes["a"]!.contains(.title), "only what changed")
        XCTAssertTrue(try changed(since: index.lastSequence).isEmpty)
    }

    func testOnlyThePropertiesThatChangedAfterSince() throws {
        var titled = TaskUpdate()
        titled.title = "Copy"
        run(.start(name("a"), TaskUpdate()))
        run(.update(name("a"), titled))
        let afterTitle = index.lastSequence
        fraction("a", 0.5)
        XCTAssertFalse(try changed(since: afterTitle)["a"]!.contains(.title))
        XCTAssertTrue(try changed(since: afterTitle - 1)["a"]!.contains(.title))
    }

    func testATaskStartedAfterSinceComesWithEveryProperty() throws {
        let serial = index.lastSequence
        run(.start(name("new"), TaskUpdate()))
        XCTAssertEqual(try changed(since: serial)["new"], .all)
    }

    func testARemovedTaskIsInRemovedOncePerPollWindow() throws {
        run(.start(name("a"), TaskUpdate()))
        let before = index.lastSequence
        run(.remove(name("a")))
        XCTAssertEqual(try removed(since: before), ["a"])
        XCTAssertEqual(try removed(since: index.lastSequence), [], "the next window does not repeat it")
        XCTAssertNil(try changed(since: before)["a"])
    }

    func testATaskStartedAndRemovedBetweenPollsIsOnlyRemoved() throws {
        let serial = index.lastSequence
        run(.start(name("brief"), TaskUpdate()))
        fraction("brief", 0.3)
        run(.remove(name("brief")))
        XCTAssertTrue(try changed(since: serial).isEmpty)
        XCTAssertEqual(try removed(since: serial), ["brief"])
    }

    func testARemovedAndRestartedNameIsInBoth() throws {
        run(.start(name("a"), TaskUpdate()))
        let serial = index.lastSequence
        run(.remove(name("a")))
        run(.start(name("a"), TaskUpdate()))
        XCTAssertEqual(try removed(since: serial), ["a"])
        XCTAssertEqual(try changed(since: serial)["a"], .all)
    }

    func testAPollOlderThanTheKeptRemovalsIsAReset() throws {
        for text in ["a", "b", "c", "d", "e"] { run(.start(name(text), TaskUpdate())) }
        let early = index.lastSequence
        run(.remove(name("a")))
        let afterFirst = index.lastSequence
        for text in ["b", "c", "d"] { run(.remove(name(text))) }
        XCTAssertEqual(try index.changes(since: early), .reset, "four removals since, three kept")
        XCTAssertEqual(try removed(since: afterFirst), ["b", "c", "d"])
        XCTAssertEqual(try index.changes(since: 0), .reset)
        XCTAssertEqual(try index.changes(since: 999), .reset, "a serial from before this run")
    }

    func testSinceInTheFutureIsRefused() {
        XCTAssertThrowsError(try index.changes(since: index.lastSequence + 1)) { error in
            XCTAssertEqual((error as? ProgressError)?.name, "InvalidValue")
            XCTAssertTrue((error as? ProgressError)?.message.contains("after the daemon's last change") ?? false)
        }
    }

    func testAPollCostsWhatChangedNotTheTaskCount() throws {
        for number in 0..<900 { run(.start(name("t\(number)"), TaskUpdate())) }
        for round in 1...50 { fraction("t7", Double(round) / 100) }
        let serial = index.lastSequence
        fraction("t9", 0.5)
        XCTAssertEqual(Array(try changed(since: serial).keys), ["t9"])
        XCTAssertEqual(Set(try changed(since: serial - 3).keys), ["t7", "t9"])
    }

    func testTheOptionsNameUnknownProperties() {
        XCTAssertThrowsError(try ChangesOptions.parse([
            (key: "properties", value: OptionValue(.strings(["Fraction", "Colour"]), signature: "as")),
        ])) {
            XCTAssertEqual(($0 as? ProgressError)?.name, "UnknownOption")
            XCTAssertTrue(($0 as? ProgressError)?.message.contains("'Colour'") ?? false)
        }
        let options = try? ChangesOptions.parse([
            (key: "properties", value: OptionValue(.strings(["Fraction", "Name"]), signature: "as")),
        ])
        XCTAssertEqual(options?.properties, [.fraction, .name])
        XCTAssertThrowsError(try ChangesOptions.parse([(key: "since", value: .uint64(3))]))
    }
}
