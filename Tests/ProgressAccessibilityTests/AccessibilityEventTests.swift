import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// What a pyatspi listener hears: paced value changes, and announcements.
final class AccessibilityEventTests: AccessibilityTestCase {
    /// 10,000 SetFraction calls: value events come no faster than the coalesced rate
    /// (10 a second by default), and the last value arrives.
    func testFloodOfUpdatesIsPacedAndTheLastValueArrives() throws {
        try start("flood", [("title", .string("Flood"))])
        _ = try treeWith("flood")
        let listener = try tool.listen(["object:property-change:accessible-value"])
        let started = Date()
        let count = 10_000
        for step in 1...count {
            client.send(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "SetFraction",
                        [.string("flood"), .double(0.73 * Double(step) / Double(count))])
        }
        // A call with a reply after them: the daemon has run every SetFraction.
        try manager("List")
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let floodEnd = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
        let floodSeconds = Date().timeIntervalSince(started)
        let tree = try tool.tree(within: 20) { ($0.bar("flood")?.value["current"] as? Double) == 73 }
        XCTAssertEqual(tree.bar("flood")?.value["current"] as? Double, 73, "the bar reads the last value")
        // Two paced intervals for the last event to leave and reach the listener.
        Thread.sleep(forTimeInterval: 0.5)
        let elapsed = Date().timeIntervalSince(started)
        let events = try listener.finish().filter { $0["source"] as? String == "Flood" }
        XCTAssertGreaterThan(events.count, 1, "value changes were heard")
        XCTAssertEqual(events.last?["value"] as? Double, 73, "the last value is never lost: \(events.suffix(3))")
        XCTAssertGreaterThan(events.last?["monotonic"] as? Double ?? 0, floodEnd,
                             "an event came after the last SetFraction was applied")
        // At most 10 a second over the whole run, with a little room for the edges.
        XCTAssertLessThanOrEqual(Double(events.count), elapsed * 10 + 3,
                                 "\(events.count) events in \(elapsed) s (the flood took \(floodSeconds) s)")
        let values = events.compactMap { $0["value"] as? Double }
        XCTAssertEqual(values, values.sorted(), "values only grow, in order")
    }

    func testFailureIsAnnouncedAssertivelyAndAStartPolitely() throws {
        let listener = try tool.listen(["object:announcement"])
        try start("upload", [("title", .string("Uploading"))])
        _ = try treeWith("upload")
        try manager("Fail", [.string("upload"), .string("network down")])
        let failedText = try accessibleText("upload")
        let deadline = Date().addingTimeInterval(2)
        while Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        let events = try listener.finish().filter { ($0["type"] as? String)?.hasPrefix("object:announcement") == true }
        let failure = try XCTUnwrap(events.last, "an Announcement event for the failure: \(events)")
        XCTAssertEqual(failure["detail1"] as? Int, 2, "politeness assertive (ATSPI_LIVE_ASSERTIVE)")
        XCTAssertEqual(failure["data"] as? String, failedText, "the text is the task's AccessibleText")
        XCTAssertTrue(failedText.contains("network down") || failedText.contains("fail"), failedText)
        XCTAssertEqual(events.first?["detail1"] as? Int, 1, "the start is polite: \(events)")
    }
}
