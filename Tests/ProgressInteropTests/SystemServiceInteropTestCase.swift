import Foundation
import ProgressClient
import ProgressTestSupport
import XCTest

/// Real system services (packagekitd, fwupd, polkitd) on a private system bus, started by a
/// script of helpers/ in a private mount namespace before progressd, which reads that bus.
class SystemServiceInteropTestCase: InteropTestCase {
    var system: PrivateBus!
    var service: HelperProcess!

    /// Runs `script` (with a scratch directory) and waits until `names` have owners.
    func startServices(_ script: String, owning names: [String], seconds: Double = 60) throws {
        system = try extraBus(system: true)
        let log = scratch.appendingPathComponent("\(script).log")
        service = try HelperProcess(
            "/bin/sh", [Self.helperDirectory.appendingPathComponent(script).path,
                        scratch.appendingPathComponent(script + ".d").path],
            environment: system.environment, errorFile: log)
        helpers.append(service)
        let connection = try system.connect()
        let owned = BusConnection.pump(seconds: seconds) {
            names.allSatisfy { name in
                let reply = try? connection.call(
                    "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
                    [.string(name)])
                return reply?.first?.bool == true
            }
        }
        guard owned else {
            throw TestSupportError("\(script) did not start: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
        }
    }

    override var environment: [String: String] {
        var environment = super.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = system.address
        return environment
    }
}
