import Foundation
import ProgressBus
import ProgressClient
import ProgressModel
import ProgressTestSupport
import XCTest

/// A KDE job's task across a restart of progressd (SIGKILL): bound to its application's
/// connection still, it fails when the application leaves, and the view KIO's V2 tracker
/// requests again from the name's new owner feeds the same task; an application that left
/// while progressd was down fails its task as soon as progressd is back.
final class JobViewRestartTests: KDETestCase {
    let server = "org.kde.JobViewServer"

    private func requestView(_ entry: String, on connection: BusConnection) throws -> String {
        try connection.call(
            server, "/JobViewServer", "org.kde.JobViewServerV2", "requestView",
            [.string(entry), .int32(3), .vardict([])]
        ).first?.string ?? ""
    }

    private func waitForServer() throws {
        let daemonName = try daemonUniqueName()
        XCTAssertTrue(BusConnection.pump(seconds: 10) { self.nameOwner(self.server) == daemonName })
    }

    func testAJobsTaskStaysBoundAcrossARestartAndFailsWhenItsApplicationLeaves() throws {
        try waitForServer()
        var app: BusConnection? = try bus.connect()
        let path = try requestView("org.kde.dolphin", on: app!)
        app?.send(server, path, "org.kde.JobViewV3", "update", [.vardict([("percent", .uint32(30))])])
        waitForProperty("kde/org.kde.dolphin/1", "Fraction", .double(0.3))
        try start("barrier")  // its reply comes after the group holding the view's Start is on disk

        try restartDaemon(killing: true)
        try waitForServer()
        XCTAssertEqual(
            try property("kde/org.kde.dolphin/1", "State"), .string("running"), "its application is still there")
        // KIO's V2 tracker asks the new owner for a view again: the same task goes on.
        let again = try requestView("org.kde.dolphin", on: app!)
        XCTAssertEqual(again, path)
        app?.send(server, again, "org.kde.JobViewV3", "update", [.vardict([("percent", .uint32(60))])])
        waitForProperty("kde/org.kde.dolphin/1", "Fraction", .double(0.6))
        XCTAssertThrowsError(try property("kde/org.kde.dolphin/2", "State"), "no second task for the same job")

        app = nil
        waitForProperty("kde/org.kde.dolphin/1", "State", .string("failed"))
        XCTAssertEqual(try property("kde/org.kde.dolphin/1", "Message"), .string("the application closed unexpectedly"))
    }

    func testAnApplicationThatLeftWhileTheDaemonWasDownFailsItsJobAtTheRestart() throws {
        try waitForServer()
        var app: BusConnection? = try bus.connect()
        _ = try requestView("org.kde.ark", on: app!)
        try start("barrier")
        daemon.kill()
        app = nil
        try startDaemon()
        waitForProperty("kde/org.kde.ark/1", "State", .string("failed"))
        XCTAssertEqual(try property("kde/org.kde.ark/1", "Message"), .string("the application closed unexpectedly"))
    }
}
