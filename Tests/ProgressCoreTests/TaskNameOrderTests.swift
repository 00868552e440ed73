@testable import ProgressModel
@testable import ProgressCore
import ProgressTestSupport
import XCTest

/// The name order kept by the task table: always what sorting the names would give, and a
/// page found by its position, whatever the table went through.
final class TaskNameOrderTests: XCTestCase {
    private func name(_ text: String) -> TaskName { try! TaskName(text) }

    private func sorted(_ names: Set<String>) -> [String] {
        names.sorted { TaskNameOrder.precedes($0, $1) }
    }

    func testRandomInsertsAndRemovalsKeepTheByteOrderAcrossManyChunks() {
        var random = SystemRandomNumberGenerator()
        var order = TaskNameOrder()
        var expected: Set<String> = []
        // Enough names for several chunk splits, and removals that empty chunks.
        let alphabet = ["a", "b", "z", "é", "日", "A", "0", "~", "ß"]
        for step in 0..<12_000 {
            let text = (0..<Int.random(in: 1...4, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
                .joined() + String(Int.random(in: 0..<3_000, using: &random))
            if step % 3 == 2, let gone = expected.randomElement(using: &random) {
                order.remove(name(gone))
                expected.remove(gone)
            } else {
                order.insert(name(text))
                expected.insert(text)
            }
        }
        XCTAssertEqual(order.count, expected.count)
        let all = sorted(expected)
        XCTAssertEqual(order.all.map(\.text), all)
        // A page starts right after `after`, whether or not that name is in the table.
        for after in ["", "a", "zzzz", "é1", "日日日日9", all[all.count / 2], all.last!, "\u{10FFFF}"] {
            let following = Array(order.names(after: after).prefix(50)).map(\.text)
            let wanted = Array((after.isEmpty ? all : all.filter { TaskNameOrder.precedes(after, $0) }).prefix(50))
            XCTAssertEqual(following, wanted, "after \(after)")
        }
    }

    func testTheStoreListsItsNamesInOrderWithoutSorting() throws {
        let store = TaskStore(clock: ManualClock())
        let door = TaskFrontDoor(store: store)
        for text in ["b", "a", "c", "ab"] {
            _ = door.perform(.start(try store.name(text), TaskUpdate()), by: .client("c"))
        }
        _ = door.perform(.remove(try store.name("b")), by: .client("c"))
        XCTAssertEqual(store.sortedNames.map(\.text), ["a", "ab", "c"])
        XCTAssertEqual(Array(store.names(after: "a")).map(\.text), ["ab", "c"])
        XCTAssertEqual(Array(store.names(after: "b")).map(\.text), ["c"])
        XCTAssertEqual(Array(store.names(after: "c")).map(\.text), [])
    }

    func testAPrintableASCIINameIsTheNameTheFullChecksGive() throws {
        let limits = Limits()
        for text in [
            "t0", "backup job", "~!@#$%^&*()_+`-={}[]|\\:;\"'<>,.?/",
            String(repeating: "x", count: limits.maxNameBytes),
        ] {
            XCTAssertEqual(TaskName(printableASCII: text, limits: limits), try TaskName(text, limits: limits))
        }
        // Anything else goes to the full checks: control characters, non-ASCII, empty, too long.
        for text in [
            "", "a\u{7}", "tab\there", "\u{7F}", "café", "zero\u{200B}width",
            String(repeating: "x", count: limits.maxNameBytes + 1),
        ] {
            XCTAssertNil(TaskName(printableASCII: text, limits: limits), text)
        }
    }
}
