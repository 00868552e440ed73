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
        // 10,000 updates in 100 bursts over a second or two, so that the whole percent
        // changes all along and an unpaced export would send far more than 10 a second.
        let count = 10_000
        for burst in 0..<100 {
            for step in (burst * 100 + 1)...(burst * 100 + 100) {
                client.send(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "SetFraction",
                            [.string("flood"), .double(0.73 * Double(step) / Double(count))])
            }
            try manager("List")
            Thread.sleep(forTimeInterval: 0.015)
        }
        // A call with a reply after them: the daemon has run every SetFraction.
        try manager("List")
        let floodSeconds = Date().timeIntervalSince(started)
        let tree = try tool.tree(within: 20) { ($0.bar("flood")?.value["current"] as? Double) == 73 }
        XCTAssertEqual(tree.bar("flood")?.value["current"] as? Double, 73, "the bar reads the last value")
        // The last event leaves when the pacer lets it, up to a paced interval after the
        // value changed: the listener stops once it has heard it.
        let heard = try listener.finish(afterHearingValue: 73)
        let elapsed = Date().timeIntervalSince(started)
        let events = heard.filter { $0["source"] as? String == "Flood" }
        XCTAssertGreaterThan(events.count, 1, "value changes were heard")
        XCTAssertEqual(events.last?["value"] as? Double, 73, "the last value is never lost: \(events.suffix(3))")
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
        // Said when the budget's interval after the start is over.
        let events = try listener.finish(data: failedText)
            .filter { ($0["type"] as? String)?.hasPrefix("object:announcement") == true }
        let failure = try XCTUnwrap(events.last, "an Announcement event for the failure: \(events)")
        XCTAssertEqual(failure["detail1"] as? Int, 2, "politeness assertive (ATSPI_LIVE_ASSERTIVE)")
        XCTAssertEqual(failure["data"] as? String, failedText, "the text is the task's AccessibleText")
        XCTAssertTrue(failedText.contains("network down") || failedText.contains("fail"), failedText)
        XCTAssertEqual(events.first?["detail1"] as? Int, 1, "the start is polite: \(events)")
    }

    /// While the registry lists no listener for value changes, progressd sends none; once a
    /// pyatspi listener registers, they flow. Seen by a plain match rule on the bus, which
    /// is no AT-SPI registration.
    func testNoValueEventsWhileNobodyListensThenEventsOnceSomeoneDoes() throws {
        try start("quiet", [("title", .string("Quiet"))])
        _ = try treeWith("quiet")
        let monitor = try BusConnection(address: try a11y.address())
        var values: [Double] = []
        monitor.subscribe(interface: "org.a11y.atspi.Event.Object", member: "PropertyChange") { signal in
            if signal.arguments.first?.string == "accessible-value" {
                values.append(signal.arguments[3].unboxed.double ?? -1)
            }
        }
        // The match rule is on the bus before anything is sent.
        try monitor.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId")
        // 10, 20 and 30 percent while nobody listens: no event says them, now or later (an
        // event leaves with the value of its moment, and the values after these are others).
        let unheard: [Double] = [10, 20, 30]
        for percent in unheard {
            try manager("SetFraction", [.string("quiet"), .double(percent / 100)])
        }
        let listener = try tool.listen(["object:property-change:accessible-value"])
        // The registry's EventListenerRegistered reaches the daemon; each SetFraction after
        // it is heard (4 percent, 5 percent…).
        var step = 4
        let heard = BusConnection.pump(seconds: 20) {
            if values.isEmpty && step < 100 {
                try? self.manager("SetFraction", [.string("quiet"), .double(Double(step) / 100)])
                step += 1
            }
            return !values.isEmpty
        }
        XCTAssertEqual(values.filter(unheard.contains), [], "no value events while nobody listens for them: \(values)")
        XCTAssertTrue(heard, "value events flow once a listener registered")
        _ = try listener.finish()
    }
}
