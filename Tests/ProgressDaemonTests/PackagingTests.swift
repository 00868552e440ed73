import Foundation
import ProgressBus
import ProgressModel
import ProgressRenderService
import ProgressTestSupport
import XCTest

/// The activation file and the user unit, as `make install` writes them.
final class PackagingTests: DaemonTestCase {
    override var startsBusAtSetUp: Bool { false }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    func installed(_ file: String) throws -> String {
        let template = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
        return template.replacingOccurrences(
            of: "@bindir@", with: BuildProducts.url(of: "progressd").deletingLastPathComponent().path)
    }

    /// The bus starts progressd on the first call to its name, from the activation file alone.
    func testTheBusActivatesTheDaemon() throws {
        try startBus(activating: ["org.progressd.Progress1"])
        let reply = try client.call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "StartServiceByName",
            [.string(BusNames.busName), .uint32(0)])
        XCTAssertEqual(reply.first?.integer, 1, "DBUS_START_REPLY_SUCCESS")
        let names = try client.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "List")
        XCTAssertEqual(names.first?.strings, [])
    }

    /// What is installed is one file, `progress`, under the three names: each name runs its
    /// program, and the bus activates the daemon and the renderer through links to it.
    func testOneFileIsTheThreeProgramsByTheNameItIsStartedBy() throws {
        let bin = FileManager.default.temporaryDirectory.appendingPathComponent("bin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: bin) }
        let program = BuildProducts.url(of: "progress").path
        for name in ["progressd", "progressctl", "progress-render"] {
            try FileManager.default.createSymbolicLink(
                atPath: bin.appendingPathComponent(name).path, withDestinationPath: program)
            let version = try CommandResult.run(bin.appendingPathComponent(name).path, ["--version"], environment: [:])
            XCTAssertEqual(version.output, "\(name) \(ProgressVersion.current)\n")
        }
        let image = bin.appendingPathComponent("ring.png")
        let drawn = try CommandResult.run(
            bin.appendingPathComponent("progress-render").path,
            ["--style", "ring", "--fraction", "0.4", "-o", image.path], environment: [:])
        XCTAssertEqual(drawn.status, 0, drawn.errors)
        XCTAssertEqual(Array(try Data(contentsOf: image).prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])

        try startBus(activating: ["org.progressd.Progress1", "org.progressd.Renderer1"], bindir: bin)
        let environment = bus.environment
        for command in [["start", "copy"], ["set", "copy", "0.5"]] {
            let done = try CommandResult.run(
                bin.appendingPathComponent("progressctl").path, command, environment: environment)
            XCTAssertEqual(done.status, 0, done.errors)
        }
        let rendered = try CommandResult.run(
            bin.appendingPathComponent("progressctl").path, ["render", "copy", "-o", image.path],
            environment: environment)
        XCTAssertEqual(rendered.status, 0, rendered.errors)
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
            // progressd releases its name while it hands over to an upgrade, which would stop a Type=dbus unit.
            XCTAssertTrue(text.contains(unitName == "progressd.service" ? "Type=exec\n" : "Type=dbus\n"))
            XCTAssertTrue(text.contains("BusName=\(busName)\n"))
            let activation = try installed("dbus/\(activationName)")
            XCTAssertTrue(activation.contains("SystemdService=\(unitName)\n"))
            XCTAssertTrue(activation.contains("Name=\(busName)\n"))

            var environment = ProcessInfo.processInfo.environment
            environment["XDG_RUNTIME_DIR"] = runtime.path
            let result = try CommandResult.run(
                "systemd-analyze", ["--user", "verify", unit.path], environment: environment)
            XCTAssertEqual(result.status, 0, result.output + result.errors)
            XCTAssertEqual(result.errors, "", "systemd-analyze has no complaints about \(unitName)")
        }
    }
}
