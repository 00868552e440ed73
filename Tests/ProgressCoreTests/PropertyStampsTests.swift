@testable import ProgressModel
import XCTest

/// The packed per-property stamps behind Changes(since): each property's last change is
/// kept exactly, whatever order properties change in, at today's sequence numbers.
final class PropertyStampsTests: XCTestCase {
    /// Sequences start from the clock's microseconds, as the daemon's do.
    let now = UInt64(1_796_000_000_000_000)

    func testEachPropertyKeepsItsOwnLastChange() {
        var stamps = PropertyStamps()
        stamps.stamp([.fraction, .serial], at: now + 1)
        stamps.stamp([.message], at: now + 2)
        stamps.stamp([.fraction], at: now + 3)
        XCTAssertEqual(stamps.changed(after: now), [.fraction, .serial, .message])
        XCTAssertEqual(stamps.changed(after: now + 1), [.fraction, .message])
        XCTAssertEqual(stamps.changed(after: now + 2), [.fraction])
        XCTAssertEqual(stamps.changed(after: now + 3), [])
    }

    func testEveryPropertyOfTheTableRoundTrips() {
        var stamps = PropertyStamps()
        let count = TaskProperty.allCases.count
        for index in 0..<count { stamps.stamp(TaskProperties(index: index), at: now + UInt64(index)) }
        for index in 0..<count {
            let expected = (index..<count).reduce(TaskProperties()) { $0.union(TaskProperties(index: $1)) }
            XCTAssertEqual(stamps.changed(after: now + UInt64(index) - 1), expected, "after property \(index)")
        }
        // Stamping them all again at once leaves one entry each, all at the new sequence.
        stamps.stamp(.all, at: now + 100)
        XCTAssertEqual(stamps.changed(after: now + 99), .all)
        XCTAssertEqual(stamps.changed(after: now + 100), [])
    }

    func testAnUnchangedTaskReportsNothing() {
        XCTAssertEqual(PropertyStamps().changed(after: 0), [])
    }
}
