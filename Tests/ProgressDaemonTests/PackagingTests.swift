import Foundation
import ProgressBus
import ProgressRendererService
import ProgressTestSupport
import XCTest

/// The activation file and the user unit, as `make install` writes them.
final class PackagingTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    func installed(_ file: String) throws -> String {
        let template = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
        return template.replacingOccurrences(
            of: "@bindir@", with: BuildProducts.url(of: "progressd").deletingLastPathComponent().path)
    }

    /// The bus starts progressd on the first call to its name, from the activation file alone.
    func testTheBusActivatesTheDaemon() throws {
        let services = FileManager.default.temporaryDirectory.appendingPathComponent("services-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: services, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: services) }
        try installed("dbus/org.progressd.Progress1.service")
            .write(to: services.appendingPathComponent("org.progressd.Progress1.service"), atomically: true, encoding: .utf8)
        let bus = try PrivateBus(serviceDirectory: services)
        defer { bus.stop() }
        let client = try bus.connect()
        let reply = try client.call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "StartServiceByName",
            [.string(BusNames.busName), .uint32(0)])
        XCTAssertEqual(reply.first?.integer, 1, "DBUS_START_REPLY_SUCCESS")
        let names = try client.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "List")
        XCTAssertEqual(names.first?.strings, [])
    }

    func testTheUserUnitVerifies() throws {
        let unitDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("unit-\(UUID().uuidString)")
        let runtime = unitDirectory.appendingPathComponent("runtime")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: runtime.path)
        defer { try? FileManager.default.removeItem(at: unitDirectory) }
        for (unitName, activationName, busName) in [
            ("progressd.service", "org.progressd.Progress1.service", BusNames.busName),
            ("progress-render.service", "org.progressd.Renderer1.service", RendererService.busName),
        ] {
            let unit = unitDirectory.appendingPathComponent(unitName)
            let text = try installed("systemd/\(unitName)")
            try text.write(to: unit, atomically: true, encoding: .utf8)
            XCTAssertTrue(text.contains("Type=dbus\n"))
            XCTAssertTrue(text.contains("BusName=\(busName)\n"))
            let activation = try installed("dbus/\(activationName)")
            XCTAssertTrue(activation.contains("SystemdService=\(unitName)\n"))
            XCTAssertTrue(activation.contains("Name=\(busName)\n"))

            var environment = ProcessInfo.processInfo.environment
            environment["XDG_RUNTIME_DIR"] = runtime.path
            let result = try CommandResult.run("systemd-analyze", ["--user", "verify", unit.path], environment: environment)
            XCTAssertEqual(result.status, 0, result.output + result.errors)
            XCTAssertEqual(result.errors, "", "systemd-analyze has no complaints about \(unitName)")
        }
    }
}
