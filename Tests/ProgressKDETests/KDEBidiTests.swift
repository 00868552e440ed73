import Foundation
import ProgressBus
import ProgressClient
import ProgressModel
import ProgressTestSupport
import XCTest

/// Issue 22, case 6: a RIGHT-TO-LEFT OVERRIDE in a KDE job's title or info message, or in a
/// Progress1 task's, left open in Title and Message and in what went on to Plasma and
/// terminals, where it reversed whatever followed it. Every output closes it.
final class KDEBidiTests: KDETestCase {
    let override = "\u{202E}"

    private func assertClosed(_ text: String?, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        guard let text else { return XCTFail("\(what) is missing", file: file, line: line) }
        XCTAssertTrue(
            text.contains(override), "\(what) keeps the client's text: \(text.debugDescription)", file: file,
            line: line)
        XCTAssertFalse(
            ClientText.leavesOpen(text), "\(what) leaves an override open: \(text.debugDescription)", file: file,
            line: line)
    }

    func testAKDEJobsOverrideIsClosedInTitleMessageAndTerminals() throws {
        let app = try bus.connect()
        let daemonName = try daemonUniqueName()
        let path = try app.call(
            daemonName, "/JobViewServer", "org.kde.JobViewServerV2", "requestView",
            [.string("org.kde.dolphin"), .int32(3), .vardict([("title", .string("Copying \(override)fdp.exe"))])]
        ).first?.string ?? ""
        app.send(daemonName, path, "org.kde.JobViewV3", "update", [.vardict([
            ("infoMessage", .string("disk \(override)full")), ("descriptionLabel1", .string("Source")),
            ("descriptionValue1", .string("/tmp/a")), ("percent", .uint32(40)),
        ])])
        let name = "kde/org.kde.dolphin/1"
        waitForProperty(name, "Fraction", .double(0.4))
        assertClosed(try property(name, "Title").string, "Title")
        let message = try XCTUnwrap(property(name, "Message").string)
        assertClosed(message, "Message")
        let info = try XCTUnwrap(message.components(separatedBy: "; Source").first)
        XCTAssertFalse(
            ClientText.leavesOpen(info),
            "the info message's override ends before the fields after it: \(message.debugDescription)")
        assertClosed(try property(name, "AccessibleText").string, "AccessibleText")

        // A terminal's view: `progressctl watch` prints the title (and a failure's message).
        app.send(
            daemonName, path, "org.kde.JobViewV3", "terminate",
            [.uint32(114), .string("no \(override)space"), .vardict([])])
        waitForProperty(name, "State", .string("failed"))
        var environment = bus.environment
        environment["LC_ALL"] = "C.UTF-8"
        let watch = try CommandResult.run(
            BuildProducts.url(of: "progressctl").path, ["watch", name], environment: environment)
        XCTAssertEqual(watch.status, 1, watch.errors)
        assertClosed(watch.output, "progressctl watch's line")
        XCTAssertTrue(
            watch.output.hasPrefix("\u{2068}Copying \(override)fdp.exe\u{202C}\u{2069}: failed"),
            watch.output.debugDescription)
    }

    func testAProgress1TasksOverrideIsClosedInWhatGoesToPlasma() throws {
        let server = try helper("job-view-server.py", [Self.xmlPath])
        let owner = waitForEvent(server, "ready")?["owner"] as? String
        XCTAssertTrue(BusConnection.pump(seconds: 10) { self.nameOwner("org.kde.JobViewServer") == owner })
        try start("sync", [("title", .string("Sync \(override)gnp.exe")), ("message", .string("album \(override)3")),
                           ("app-id", .string("org.example.Sync")), ("fraction", .double(0.2))])
        assertClosed(try property("sync", "Title").string, "Title")
        assertClosed(try property("sync", "Message").string, "Message")
        let request = try XCTUnwrap(
            waitForEvent(server, "requestView") { $0["entry"] as? String == "org.example.Sync" })
        let hints = try XCTUnwrap(request["hints"] as? [String: Any])
        assertClosed(hints["title"] as? String, "the title forwarded to Plasma")
        assertClosed(hints["infoMessage"] as? String, "the info message forwarded to Plasma")
        let path = try XCTUnwrap(request["path"] as? String)
        try manager("Fail", [.string("sync"), .string("no \(override)space")])
        let terminate = waitForEvent(server, "terminate") { $0["path"] as? String == path }
        assertClosed(terminate?["message"] as? String, "terminate's message to Plasma")
    }
}
