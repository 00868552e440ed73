import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// Issue 12: 5,000 tasks starting sent 5,000 broadcast Announcements in 1.6 s, and a
/// default subscription got the same. Both now hold about one a second, summarised, and
/// every failure is spoken.
final class AnnouncementFloodTests: DaemonTestCase {
    override var daemonArguments: [String] { ["--max-tasks-per-caller", "10000"] }

    func testFiveThousandTasksGiveAboutOneAnnouncementASecondAndEveryFailure() throws {
        var broadcast: [String] = []
        var subscribed: [String] = []
        listener.subscribe(interface: BusNames.managerInterface, member: "Announcement") { signal in
            broadcast.append(signal.arguments[1].string ?? "")
        }
        let reader = try bus.connect()
        let path = try XCTUnwrap(manager("Subscribe", [.vardict([])], on: reader).first?.string)
        reader.subscribe(path: path) { signal in
            if signal.member == "Announcement" { subscribed.append(signal.arguments[1].string ?? "") }
        }
        for connection in [listener!, reader] {
            try connection.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId")
        }
        let began = Date()
        let names = (0..<5_000).map { "job-\($0)" }
        for name in names { try start(name) }
        for step in 1...3 {
            for batch in stride(from: 0, to: names.count, by: 1_000) {
                let entries = names[batch..<batch + 1_000].map { name in
                    BusValue.tuple([.string(name), .vardict([("fraction", .double(Double(step) / 4))])])
                }
                try manager("UpdateMany", [.array(elementType: "(sa{sv})", entries)])
            }
        }
        let failures = ["job-7", "job-700", "job-4999"]
        for name in failures { try manager("Fail", [.string(name), .string("\(name) disk full")]) }
        let allSpoken = { (heard: [String]) in
            failures.allSatisfy { name in heard.contains { $0.contains("\(name) disk full") } }
        }
        XCTAssertTrue(BusConnection.pump(seconds: 30) { allSpoken(broadcast) && allSpoken(subscribed) },
                      "every failure is spoken: \(broadcast.suffix(3)) / \(subscribed.suffix(3))")
        let seconds = Date().timeIntervalSince(began)
        for (heard, listener) in [(broadcast, "broadcast"), (subscribed, "subscription")] {
            XCTAssertLessThanOrEqual(Double(heard.count), seconds + 2, "\(listener): \(heard.count) in \(seconds) s")
            XCTAssertTrue(
                heard.contains { $0.contains("percent overall") }, "\(listener) summarises: \(heard.prefix(3))")
        }
    }
}
