import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// A script's one-shot call that expects no reply: `dbus-send --type=method_call` without
/// `--print-reply` sends and exits, often before progressd has learned who it is (the bus
/// no longer knows the connection, or its process is gone). Such a caller is confined, so
/// its SetFraction on the host's task is refused, and no reply carries the refusal. Which
/// way each call goes is a race with the process's exit; either way it is never lost
/// without a word: the value is applied, or the daemon's log names the connection (at the
/// first such connection and at the second, as it logs each doubling).
final class OneShotCallerTests: DaemonTestCase {
    /// The daemon's log lines about connections it could not identify.
    var unreadLogged: Int { daemon.errors.components(separatedBy: "such connections so far").count - 1 }

    func testACallWithoutReplyFromAProcessThatExitedIsAppliedOrLogged() throws {
        try start("job", [("title", .string("Job"))])
        var refused = 0
        for value in [0.25, 0.5] {
            let sent = try CommandResult.run("/usr/bin/dbus-send", [
                "--session", "--type=method_call", "--dest=\(BusNames.busName)", BusNames.managerPath,
                "\(BusNames.managerInterface).SetFraction",
                "string:job", "double:\(value)",
            ], environment: bus.environment)
            XCTAssertEqual(sent.status, 0, sent.output)
            var applied = false
            let settled = BusConnection.pump(seconds: 10) {
                applied = (try? self.property("job", "Fraction")) == .double(value)
                return applied || self.unreadLogged > refused
            }
            XCTAssertTrue(settled, "SetFraction \(value) was neither applied nor logged:\n\(daemon.errorTail())")
            if !applied { refused += 1 }
        }
        XCTAssertEqual(unreadLogged, refused)
        print("OneShotCallerTests: \(refused) of 2 one-shot calls came from a caller gone before it was read")
    }
}
