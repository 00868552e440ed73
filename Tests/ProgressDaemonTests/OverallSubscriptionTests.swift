import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// A subscription with "overall-steps": OverallChanged goes to the subscriber when what a panel
/// drawing it at those resolutions shows would change, not at every move, and its last
/// value is never lost.
final class OverallSubscriptionTests: DaemonTestCase {
    func testOverallComesWhenAStepOrTheStateChanges() throws {
        let panel = try bus.connect()
        var overalls: [[String: BusValue]] = []
        var others: [String] = []
        // Subscribed to before Subscribe, which sends the first at once: the path is not known yet.
        panel.subscribe(interface: BusNames.subscriptionInterface) { signal in
            if signal.member == "OverallChanged" {
                overalls.append(signal.arguments[0].dictionary ?? [:])
            } else {
                others.append(signal.member)
            }
        }
        let path = try XCTUnwrap(manager("Subscribe", [.vardict([
            ("announcements", .bool(false)), ("overall-steps", .array(elementType: "u", [.uint32(100)])),
        ])], on: panel).first?.string)
        XCTAssertTrue(path.hasPrefix(BusNames.managerPath + "/subscriptions/"))
        XCTAssertTrue(
            BusConnection.pump(seconds: 10) { !overalls.isEmpty }, "the overall as it is comes after Subscribe")
        XCTAssertEqual(overalls.first?["state"], .string("idle"))
        XCTAssertEqual(overalls.first?["active"], .uint64(0))

        try start("copy")
        XCTAssertTrue(
            BusConnection.pump(seconds: 10) { overalls.last?["active"] == .uint64(1) }, "a new task: \(overalls)")
        let beforeMoves = overalls.count
        // A transfer's moves: 0.1 % an update, 20 % to 30 %, ten whole percents.
        for step in 200...300 {
            try manager("SetFraction", [.string("copy"), .double(Double(step) / 1000)])
        }
        XCTAssertTrue(
            BusConnection.pump(seconds: 10) { overalls.last?["fraction"] == .double(0.3) },
            "the last value arrives: \(overalls.suffix(3))")
        let moves = overalls.count - beforeMoves
        XCTAssertGreaterThanOrEqual(moves, 1)
        XCTAssertLessThanOrEqual(moves, 11, "at most one a whole percent for 101 updates")

        // Within the same percent: nothing a panel would show, so nothing comes.
        let afterMoves = overalls.count
        try manager("SetFraction", [.string("copy"), .double(0.305)])
        try manager("SetFraction", [.string("copy"), .double(0.309)])
        // A state change, within the same step, comes, and after it everything before it.
        try waitForMarker("the paused overall", send: {
            try manager("Update", [.string("copy"), .vardict([("state", .string("paused"))])])
        }, arrived: { overalls.last?["state"] == .string("paused") })
        XCTAssertEqual(overalls.count, afterMoves + 1, "moves within the step were not sent: \(overalls.suffix(3))")
        XCTAssertEqual(overalls.last?["fraction"], .double(0.309), "what goes out is the overall as it is")
        XCTAssertEqual(others, [], "only OverallChanged was asked for")
    }

    func testBadOverallStepsAreRefused() throws {
        assertBusError("InvalidValue", "overall-steps 0 is outside 1...10000") {
            let steps = BusValue.array(elementType: "u", [.uint32(100), .uint32(0)])
            try self.manager("Subscribe", [.vardict([("overall-steps", steps)])])
        }
        assertBusError("InvalidValue", "an array of whole numbers (au)") {
            try self.manager("Subscribe", [.vardict([("overall-steps", .array(elementType: "i", [.int32(100)]))])])
        }
        assertBusError("InvalidValue", "neither announcements, changes nor overall-steps") {
            try self.manager("Subscribe", [.vardict([("announcements", .bool(false))])])
        }
    }
}
