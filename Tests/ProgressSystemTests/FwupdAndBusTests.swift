import Foundation
import ProgressClient
import ProgressTestSupport
import XCTest

/// fwupd through a fake serving Debian's own org.freedesktop.fwupd.xml (the real fwupd
/// runs in `make interop`), and the system bus itself: missing at start, coming later,
/// going away.
final class FwupdAndBusTests: SystemJobTestCase {
    func fwupd() throws -> HelperProcess {
        let fake = try fake("org.freedesktop.fwupd", [Self.installedInterfaces + "org.freedesktop.fwupd.xml"])
        send(fake, ["op": "set", "path": "/", "interface": "org.freedesktop.fwupd", "props": ["Status": ["u", 1]]])
        return fake
    }

    func daemonState(_ fake: HelperProcess, status: Int, percentage: Int) {
        send(fake, ["op": "set", "path": "/", "interface": "org.freedesktop.fwupd",
                    "props": ["Status": ["u", status], "Percentage": ["u", percentage]]])
    }

    func device(_ fake: HelperProcess, _ properties: [String: [Any]]) {
        send(fake, ["op": "signal", "path": "/", "interface": "org.freedesktop.fwupd", "member": "DeviceChanged",
                    "sig": "(a{sv})", "args": [properties.mapValues { ["__variant__", $0[0], $0[1]] }]])
    }

    func testAFirmwareUpdateIsOneTaskFromBusyToIdle() throws {
        let fake = try fwupd()
        // Busy before progressd starts: GetAll finds the update under way.
        daemonState(fake, status: 3, percentage: 0)
        try startDaemon()
        let started = waitFor("system/fwupd/1") {
            $0["Indeterminate"]?.bool == true && $0["Title"]?.string == "Updating firmware"
        }
        XCTAssertEqual(try daemonConnectionsOnTheSystemBus().count, 1, "the daemon's one connection to the system bus")
        device(fake, ["DeviceId": ["s", "b585990a"], "Name": ["s", "Integrated Webcam™"], "Status": ["u", 3]])
        XCTAssertEqual(started?["AppId"]?.string, "", "firmware has no front end here")
        daemonState(fake, status: 5, percentage: 40)
        let writing = waitFor("system/fwupd/1") { $0["Fraction"]?.double == 0.4 }
        XCTAssertEqual(writing?["Title"]?.string, "Updating firmware of Integrated Webcam™")
        XCTAssertEqual(writing?["Message"]?.string, "Writing firmware")
        daemonState(fake, status: 6, percentage: 90)
        waitFor("system/fwupd/1") { $0["Message"]?.string == "Verifying firmware" }
        daemonState(fake, status: 1, percentage: 0)
        waitForState("system/fwupd/1", "finished")

        daemonState(fake, status: 5, percentage: 10)
        device(fake, ["DeviceId": ["s", "b585990a"], "Name": ["s", "Integrated Webcam™"], "Status": ["u", 5]])
        waitFor("system/fwupd/2") { $0["Fraction"]?.double == 0.1 }
        device(fake, ["DeviceId": ["s", "b585990a"], "UpdateState": ["u", 3],
                      "UpdateError": ["s", "device was not in bootloader mode"]])
        daemonState(fake, status: 1, percentage: 0)
        XCTAssertEqual(
            waitForState("system/fwupd/2", "failed")?["Message"]?.string, "device was not in bootloader mode")
    }

    func testNoSystemBusAtStartIsNoErrorAndABusThatComesLaterIsRead() throws {
        let socket = FileManager.default.temporaryDirectory.appendingPathComponent(
            "progressd-late-system-\(UUID().uuidString)")
        try startDaemon(environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(socket.path)"])
        XCTAssertNil(call("Start", "copy", [.vardict([])]), "the daemon serves without a system bus")
        // Its first try (asynchronous) has failed before the bus comes, or it would simply succeed.
        XCTAssertTrue(
            BusConnection.pump(seconds: 20) { self.daemon.errors.contains("could not connect to the system bus") })
        let late = try extraBus(system: true, socket: socket)
        system.stop()
        system = late
        let fake = try fwupd()
        daemonState(fake, status: 5, percentage: 30)
        waitFor("system/fwupd/1", seconds: 20) { $0["Fraction"]?.double == 0.3 }
        let log = daemon!.stopAndReadErrors()
        daemon = nil
        XCTAssertEqual(
            log.components(separatedBy: "could not connect to the system bus").count - 1, 1, "logged once: \(log)")
        XCTAssertTrue(log.contains("connected to the system bus"), log)
    }

    func testTheSystemBusGoingAwayFailsLiveJobs() throws {
        let fake = try fwupd()
        try startDaemon()
        daemonState(fake, status: 5, percentage: 30)
        waitFor("system/fwupd/1") { $0["Fraction"]?.double == 0.3 }
        system.stop()
        // dbus-daemon drops its peers in no set order: fwupd's name may go before progressd's
        // connection does, and either way the job fails.
        let message = waitForState("system/fwupd/1", "failed")?["Message"]?.string
        XCTAssertTrue(
            ["the system bus went away while the job ran",
             "org.freedesktop.fwupd left the system bus while the job ran"]
                .contains(message ?? ""), message ?? "no message")
        XCTAssertNil(call("Start", "after", [.vardict([])]), "the daemon goes on")
        XCTAssertTrue(daemon!.process.isRunning)
    }

    func testNoSystemJobsConnectsToNothing() throws {
        let fake = try fwupd()
        try startDaemon(["--no-system-jobs"])
        daemonState(fake, status: 5, percentage: 30)
        XCTAssertNil(call("Start", "probe", [.vardict([])]))
        // The daemon has handled its start and every call before this round trip: an input
        // of system jobs would have asked for its connection in the start, before serving.
        try settle()
        XCTAssertNil(task("system/fwupd/1"), "fwupd is busy, and no task shows")
        XCTAssertEqual(try daemonConnectionsOnTheSystemBus(), [], "no connection to the system bus")
    }
}
