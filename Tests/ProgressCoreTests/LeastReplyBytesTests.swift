@testable import ProgressCore
@testable import ProgressModel
import ProgressTestSupport
import XCTest

/// The store's bytes of every name, which a large read is refused by before it is built:
/// kept as tasks come and go, and always the sum a walk of the names would give.
final class LeastReplyBytesTests: XCTestCase {
    private func walkedNameBytes(_ store: TaskStore) -> Int { store.namesInOrder.reduce(0) { $0 + $1.text.utf8.count } }

    func testTheNameBytesFollowStartsRestartsAndRemovals() throws {
        let store = TaskStore(clock: ManualClock())
        let door = TaskFrontDoor(store: store)
        XCTAssertEqual(store.leastReplyBytes(perTask: 100), 0, "no task, no bytes")
        for text in ["a", "日本", "backup job"] {
            _ = door.perform(.start(try store.name(text), TaskUpdate()), by: .client("c"))
        }
        XCTAssertEqual(store.leastReplyBytes(perTask: 0), 1 + 6 + 10)
        XCTAssertEqual(store.leastReplyBytes(perTask: 7), 1 + 6 + 10 + 3 * 7)
        // Starting a task that exists (its restart) and updating one add no name.
        _ = door.perform(.start(try store.name("a"), TaskUpdate()), by: .client("c"))
        _ = door.perform(.setFraction(try store.name("日本"), 0.5), by: .client("c"))
        XCTAssertEqual(store.leastReplyBytes(perTask: 0), 17)
        _ = door.perform(.remove(try store.name("日本")), by: .client("c"))
        XCTAssertEqual(store.leastReplyBytes(perTask: 7), 1 + 10 + 2 * 7)
        XCTAssertEqual(store.leastReplyBytes(perTask: 0), walkedNameBytes(store))
    }

    func testManyChangesKeepTheSumAWalkGives() throws {
        let store = TaskStore(clock: ManualClock())
        let door = TaskFrontDoor(store: store)
        var random = SystemRandomNumberGenerator()
        for step in 0..<2_000 {
            let name = try store.name("task \(Int.random(in: 0..<300, using: &random)) é")
            if step % 3 == 0 {
                _ = door.perform(.remove(name), by: .client("c"))
            } else {
                _ = door.perform(.start(name, TaskUpdate()), by: .client("c"))
            }
        }
        XCTAssertGreaterThan(store.count, 0)
        XCTAssertEqual(store.leastReplyBytes(perTask: 0), walkedNameBytes(store))
    }
}
