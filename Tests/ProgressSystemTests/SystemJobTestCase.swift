import Foundation
import ProgressBus
import ProgressClient
import ProgressModel
import ProgressTestSupport
import XCTest

/// The daemon fixture with a private system bus (never the machine's) and fake system
/// services on that bus, written from the services' introspection XML (PackageKit's and
/// fwupd's as Debian installs them, UDisks2's and import1's as their projects document
/// them, in helpers/). A test starts the daemon once its fakes are there.
class SystemJobTestCase: DaemonTestCase {
    var system: PrivateBus!
    override var startsDaemonAtSetUp: Bool { false }
    override var daemonEnvironment: [String: String] { ["DBUS_SYSTEM_BUS_ADDRESS": system.address] }

    static let helpers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("helpers")
    static let installedInterfaces = "/usr/share/dbus-1/interfaces/"
    let uid = getuid()

    override func prepareBus() throws {
        system = try extraBus(system: true)
    }

    /// The unique names on the system bus of connections the daemon made.
    func daemonConnectionsOnTheSystemBus() throws -> [String] {
        let peer = try system.connect()
        let bus = ("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus")
        let names = try peer.call(bus.0, bus.1, bus.2, "ListNames").first?.strings ?? []
        return names.filter { name in
            guard name.hasPrefix(":"),
                  case .uint32(let pid)? = (try? peer.call(
                      bus.0, bus.1, bus.2, "GetConnectionUnixProcessID", [.string(name)]))?.first
            else { return false }
            return pid == UInt32(daemon.process.processIdentifier)
        }
    }

    /// A fake service owning `name` on the system bus, serving the interfaces of `xml`.
    func fake(_ name: String, _ xml: [String], manager: String? = nil, own: Bool = true) throws -> HelperProcess {
        let arguments = [Self.helpers.appendingPathComponent("fake-system-service.py").path, name]
            + (manager.map { ["--manager", $0] } ?? []) + xml
        let fake = try HelperProcess(
            "/usr/bin/python3", arguments, environment: system.environment, readsCommands: true)
        helpers.append(fake)
        XCTAssertNotNil(fake.waitForLine { $0.contains("\"ready\"") }, "the fake service started")
        if own { send(fake, ["op": "own"]) }
        return fake
    }

    /// One command to a fake, answered when it has been carried out.
    func send(_ fake: HelperProcess, _ command: [String: Any], file: StaticString = #filePath, line: UInt = #line) {
        let before = fake.lines.filter { $0.contains("\"done\"") }.count
        fake.send(String(decoding: try! JSONSerialization.data(withJSONObject: command), as: UTF8.self))
        let done = BusConnection.pump(seconds: 10) { fake.lines.filter { $0.contains("\"done\"") }.count > before }
        XCTAssertTrue(
            done, "the fake did not carry out \(command); it printed \(fake.lines.suffix(5))", file: file, line: line)
    }

    /// How many calls of `member` the fake has had. A command first, harmless, whose "done"
    /// the fake prints after every line it printed before: those have all been read here.
    func calls(_ fake: HelperProcess, _ member: String) -> Int {
        send(fake, ["op": "unanswer", "member": "(none)"])
        return fake.lines.filter { $0.contains("\"called\"") && $0.contains("\"member\": \"\(member)\"") }.count
    }

    /// The task's properties, or nil while there is no such task.
    func task(_ name: String) -> [String: BusValue]? {
        guard let reply = try? client.call(
            BusNames.busName, BusNames.taskPath(try TaskName(name)), BusNames.propertiesInterface, "GetAll",
            [.string(BusNames.taskInterface)]) else { return nil }
        return reply.first?.dictionary
    }

    /// Pumps until the task satisfies `condition`; fails with what the task last was.
    @discardableResult
    func waitFor(
        _ name: String, seconds: Double = 10, file: StaticString = #filePath, line: UInt = #line,
        _ condition: ([String: BusValue]) -> Bool
    ) -> [String: BusValue]? {
        var last: [String: BusValue]?
        let reached = BusConnection.pump(seconds: seconds) {
            last = task(name)
            return last.map(condition) ?? false
        }
        if !reached {
            let shown = last.map {
                "\($0["State"]?.string ?? "?") \($0["Fraction"]?.double ?? -1) "
                    + "'\($0["Title"]?.string ?? "")' '\($0["Message"]?.string ?? "")'"
            }
            XCTFail(
                "\(name) is \(shown ?? "absent"); the fakes printed \(helpers.map { $0.lines.suffix(6) })", file: file,
                line: line)
        }
        return last
    }

    @discardableResult
    func waitForState(
        _ name: String, _ state: String, file: StaticString = #filePath, line: UInt = #line
    ) -> [String: BusValue]? {
        waitFor(name, file: file, line: line) { $0["State"]?.string == state }
    }

    func call(_ method: String, _ name: String, _ extra: [BusValue] = []) -> String? {
        do {
            _ = try client.call(
                BusNames.busName, BusNames.managerPath, BusNames.managerInterface, method, [.string(name)] + extra)
            return nil
        } catch {
            return "\(error)"
        }
    }
}
