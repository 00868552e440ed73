import Foundation
import ProgressBus
import ProgressClient
import ProgressModel
import ProgressTestSupport
import XCTest

/// Debian 12's real fwupd (2.0.20) with its test devices and the real polkitd on a private
/// system bus, in a private mount namespace (helpers/fwupd-system.sh); `fwupdmgr install`
/// of fwupd-tests' fakedevice124.cab updates the "Integrated Webcam™" test device, and the
/// update is one task whose fraction rises and that ends finished.
final class FwupdInteropTests: SystemServiceInteropTestCase {
    override func setUpBeforeDaemon() throws {
        // fwupd takes a few seconds to load its plugins before it owns its name.
        try startServices("fwupd-system.sh", owning: ["org.freedesktop.fwupd", "org.freedesktop.PolicyKit1"])
    }

    func testAFirmwareUpdateIsATaskThatRisesAndFinishes() throws {
        let install = try HelperProcess(
            "/usr/bin/fwupdmgr",
            ["install", "/usr/share/installed-tests/fwupd/fakedevice124.cab", "--allow-reinstall", "--allow-older",
             "-y", "--no-reboot-check"],
            environment: environment)
        helpers.append(install)
        var fractions: [Double] = []
        var titles: Set<String> = []
        var last: [String: BusValue]?
        _ = BusConnection.pump(seconds: 60) {
            guard let task = try? client.call(
                BusNames.busName, BusNames.taskPath(try TaskName("system/fwupd/1")), BusNames.propertiesInterface,
                "GetAll", [.string(BusNames.taskInterface)]
            ).first?.dictionary else { return false }
            last = task
            if let title = task["Title"]?.string { titles.insert(title) }
            if task["Indeterminate"]?.bool == false, let fraction = task["Fraction"]?.double,
               fraction != fractions.last {
                fractions.append(fraction)
            }
            return task["State"]?.string != "running"
        }
        XCTAssertEqual(install.waitForExit(seconds: 30), 0, "\(install.lines.suffix(5))")
        XCTAssertEqual(last?["State"]?.string, "finished", "\(String(describing: last))")
        XCTAssertTrue(titles.contains("Updating firmware of Integrated Webcam™"), "\(titles)")
        XCTAssertGreaterThanOrEqual(fractions.count, 3, "\(fractions)")
        let listed = try client.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "List", [])
            .first?.strings
        XCTAssertEqual(listed?.filter { $0.hasPrefix("system/") }, ["system/fwupd/1"], "one update, one task")
    }
}
