import Foundation
import ProgressBus
import ProgressClient
import ProgressModel
import ProgressTestSupport
import XCTest

/// progressd serving org.kde.JobViewServer on a bus where nobody else does: each test's
/// `app` connection speaks the protocol as KIO does (V2 with JobViewV3, or V1 with JobViewV2).
final class JobViewServerInputTests: KDETestCase {
    let server = "org.kde.JobViewServer"
    var app: BusConnection!

    override func setUpWithError() throws {
        try super.setUpWithError()
        app = try bus.connect()
        let daemonName = try daemonUniqueName()
        XCTAssertTrue(BusConnection.pump(seconds: 10) {
            self.nameOwner(self.server) == daemonName && self.nameOwner("org.kde.kuiserver") == daemonName
        })
    }

    override func tearDown() {
        app = nil
        super.tearDown()
    }

    private func requestV2(
        _ entry: String, capabilities: Int32 = 3, hints: [(String, BusValue)] = [], on connection: BusConnection? = nil
    ) throws -> String {
        try (connection ?? app).call(
            server, "/JobViewServer", "org.kde.JobViewServerV2", "requestView",
            [.string(entry), .int32(capabilities), .vardict(hints)]
        ).first?.string ?? ""
    }

    private func update(_ path: String, _ properties: [(String, BusValue)]) {
        app.send(server, path, "org.kde.JobViewV3", "update", [.vardict(properties)])
    }

    private func assertError(
        _ name: String, file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Void
    ) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            XCTAssertEqual((error as? BusCallError)?.name, name, "\(error)", file: file, line: line)
        }
    }

    func testKIOFindsV2AndNeedsNoTrackerOfItsOwn() throws {
        let xml = try app.call(
            "org.kde.kuiserver", "/JobViewServer", "org.freedesktop.DBus.Introspectable",
            "Introspect").first?.string ?? ""
        XCTAssertTrue(xml.contains("<interface name=\"org.kde.JobViewServerV2\">"), xml)
        XCTAssertTrue(xml.contains("<interface name=\"org.kde.JobViewServer\">"), xml)
        let reply = try app.call("org.kde.kuiserver", "/JobViewServer", "org.kde.kuiserver", "requiresJobTracker")
        XCTAssertEqual(reply.first, .bool(false))
        assertError("org.freedesktop.DBus.Error.NotSupported") {
            try app.call(
                "org.kde.kuiserver", "/JobViewServer", "org.kde.kuiserver", "registerService",
                [.string("a"), .string("/b")])
        }
    }

    func testAV2JobBecomesATaskAndCancelReachesIt() throws {
        let path = try requestV2("org.kde.dolphin", hints: [("title", .string("Copying"))])
        let name = "kde/org.kde.dolphin/1"
        waitForProperty(name, "Title", .string("Copying"))
        var signals: [String] = []
        app.subscribe(path: path) { signals.append("\($0.interface).\($0.member)") }
        update(path, [
            ("totalBytes", .uint64(1_000)), ("processedBytes", .uint64(250)), ("percent", .uint32(25)),
            ("descriptionLabel1", .string("Source")), ("descriptionValue1", .string("sftp://host/a.iso")),
            ("infoMessage", .string("Copying")), ("colour", .string("blue")), ("speed", .uint64(100)),
        ])
        waitForProperty(name, "Completed", .uint64(250))
        XCTAssertEqual(try property(name, "Total"), .uint64(1_000))
        XCTAssertEqual(try property(name, "Unit"), .string("bytes"))
        XCTAssertEqual(try property(name, "Message"), .string("Copying; Source: sftp://host/a.iso"))
        XCTAssertEqual(try property(name, "AppId"), .string("org.kde.dolphin"))
        XCTAssertEqual(try property(name, "Cancellable"), .bool(true))
        XCTAssertEqual(try property(name, "Pausable"), .bool(true))
        XCTAssertEqual(try property(name, "Lifetime"), .string("persistent"))

        try manager("RequestPause", [.string(name)])
        try manager("RequestCancel", [.string(name)])
        XCTAssertTrue(
            BusConnection.pump(seconds: 10) { signals.contains("org.kde.JobViewV3.cancelRequested") }, "\(signals)")
        XCTAssertTrue(signals.contains("org.kde.JobViewV3.suspendRequested"), "\(signals)")
        XCTAssertTrue(
            signals.contains("org.kde.JobViewV2.cancelRequested"), "V1 clients listen on JobViewV2: \(signals)")
        update(path, [("suspended", .bool(true))])
        waitForProperty(name, "State", .string("paused"))
        // KIO answers a cancel with terminate(ERR_USER_CANCELED).
        app.send(
            server, path, "org.kde.JobViewV3", "terminate",
            [.uint32(1), .string("The process was killed"), .vardict([])])
        waitForProperty(name, "State", .string("cancelled"))
        assertError("org.freedesktop.DBus.Error.Failed") {
            try app.call(server, path, "org.kde.JobViewV3", "update", [.vardict([("percent", .uint32(5))])])
        }
    }

    func testOutcomesAndPercentWithoutAmounts() throws {
        let done = try requestV2("org.kde.ark", capabilities: 0)
        update(done, [("percent", .uint32(250))])
        waitForProperty("kde/org.kde.ark/1", "Fraction", .double(1.0))
        app.send(server, done, "org.kde.JobViewV3", "terminate", [.uint32(0), .string(""), .vardict([])])
        waitForProperty("kde/org.kde.ark/1", "State", .string("finished"))
        XCTAssertEqual(try property("kde/org.kde.ark/1", "Cancellable"), .bool(false))

        let failed = try requestV2("org.kde.ark")
        app.send(server, failed, "org.kde.JobViewV3", "terminate", [.uint32(114), .string("Disk full"), .vardict([])])
        waitForProperty("kde/org.kde.ark/2", "State", .string("failed"))
        XCTAssertEqual(try property("kde/org.kde.ark/2", "Message"), .string("Disk full"))
    }

    func testAV1ClientWorks() throws {
        let path = try app.call(
            server, "/JobViewServer", "org.kde.JobViewServer", "requestView",
            [.string("kget"), .string("kget"), .int32(1)])
            .first?.string ?? ""
        let v2 = "org.kde.JobViewV2"
        app.send(server, path, v2, "setTotalAmount", [.uint64(10), .string("files")])
        app.send(server, path, v2, "setProcessedAmount", [.uint64(4), .string("files")])
        app.send(server, path, v2, "setInfoMessage", [.string("Downloading")])
        let result = try app.call(
            server, path, v2, "setDescriptionField", [.uint32(0), .string("Source"), .string("http://x/y")])
        XCTAssertEqual(result.first, .bool(true))
        waitForProperty("kde/kget/1", "Completed", .uint64(4))
        XCTAssertEqual(try property("kde/kget/1", "Unit"), .string("files"))
        XCTAssertEqual(try property("kde/kget/1", "Title"), .string("kget"))
        XCTAssertEqual(try property("kde/kget/1", "Message"), .string("Downloading; Source: http://x/y"))
        app.send(server, path, v2, "setError", [.uint32(1)])
        app.send(server, path, v2, "terminate", [.string("")])
        waitForProperty("kde/kget/1", "State", .string("cancelled"))

        let second = try app.call(
            server, "/JobViewServer", "org.kde.JobViewServer", "requestView", [.string("kget"), .string(""), .int32(0)])
            .first?.string ?? ""
        app.send(server, second, v2, "terminate", [.string("")])
        waitForProperty("kde/kget/2", "State", .string("finished"))
    }

    func testTheApplicationLeavingFailsItsLiveJobs() throws {
        var leaving: BusConnection? = try bus.connect()
        let live = try requestV2("org.kde.dolphin", on: leaving)
        let ended = try requestV2("org.kde.dolphin", on: leaving)
        leaving?.send(server, ended, "org.kde.JobViewV3", "terminate", [.uint32(0), .string(""), .vardict([])])
        waitForProperty("kde/org.kde.dolphin/2", "State", .string("finished"))
        XCTAssertFalse(live.isEmpty)
        leaving = nil  // the connection closes with its last reference
        waitForProperty("kde/org.kde.dolphin/1", "State", .string("failed"))
        XCTAssertEqual(try property("kde/org.kde.dolphin/1", "Message"), .string("the application closed unexpectedly"))
        XCTAssertEqual(try property("kde/org.kde.dolphin/2", "State"), .string("finished"))
    }

    func testBadCallsGetErrorsAndOneConnectionIsCapped() throws {
        assertError("org.freedesktop.DBus.Error.InvalidArgs") {
            try app.call(
                server, "/JobViewServer", "org.kde.JobViewServerV2", "requestView",
                [.string("a"), .string("b"), .string("c")])
        }
        let path = try requestV2("org.kde.dolphin")
        assertError("org.freedesktop.DBus.Error.InvalidArgs") {
            try app.call(server, path, "org.kde.JobViewV3", "update", [.string("percent")])
        }
        let other = try bus.connect()
        assertError("org.freedesktop.DBus.Error.AccessDenied") {
            try other.call(server, path, "org.kde.JobViewV3", "update", [.vardict([])])
        }
        for _ in 1..<Limits().maxJobViewsPerCaller { _ = try requestV2("spam") }
        assertError("org.freedesktop.DBus.Error.LimitsExceeded") { _ = try requestV2("spam") }
        // Another application (another process) is not affected, and a terminated view no longer counts.
        let ark = try requestViewFromAnotherProcess("org.kde.ark")
        XCTAssertTrue(ark.hasPrefix("(objectpath '/org/progressd/kde/JobView_"), ark)
        try app.call(server, path, "org.kde.JobViewV3", "terminate", [.uint32(0), .string(""), .vardict([])])
        XCTAssertFalse(try requestV2("spam").isEmpty)
    }
}
