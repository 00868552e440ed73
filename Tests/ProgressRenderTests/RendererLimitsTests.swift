import Foundation
import ProgressBus
import ProgressClient
import ProgressCore
import ProgressRender
import ProgressRendererService
import ProgressTestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Issue 12: a 49 KB PNG declaring 20000x20000 was decoded in full before the size check
/// (4.8 s, +1.6 GB); a label of 200,000 combining marks took 75 s; with progressd hung,
/// Render {task} waited 25 s. Each is now refused within a documented bound.
final class RendererLimitsTests: XCTestCase {
    static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// A real PNG whose header says 20000x20000, with a correct CRC, so that only the size is wrong.
    static func bomb() throws -> [UInt8] {
        var png = try SkinTests.sliced(width: 30, height: 12)
        func put(_ value: UInt32, at offset: Int) {
            for index in 0..<4 { png[offset + index] = UInt8(truncatingIfNeeded: value >> (24 - 8 * index)) }
        }
        put(20_000, at: 16)
        put(20_000, at: 20)
        put(crc32(png[12..<29]), at: 29)
        return png
    }

    func testAPNGBombIsRefusedFromItsHeaderInMilliseconds() throws {
        var spec = RenderSpec()
        spec.style = .skin
        spec.trackImage = try Self.bomb()
        spec.fillImage = try SkinTests.sliced(width: 20, height: 8, capX: 8, capY: 3)
        let began = Date()
        XCTAssertThrowsError(try ProgressRenderer.raster(spec)) { error in
            XCTAssertEqual((error as? RenderError)?.name, "InvalidImage")
            XCTAssertEqual((error as? RenderError)?.message, "track-image is 20000x20000; the limit is 1024 a side")
        }
        XCTAssertLessThan(Date().timeIntervalSince(began), 0.5, "no pixel decoded")
    }

    func testALongLabelIsRefusedBeforeShaping() {
        let marks = "a" + String(repeating: "\u{301}", count: 200_000)
        let began = Date()
        XCTAssertThrowsError(try RenderSpec.parse([(key: "label", value: .string(marks))])) { error in
            XCTAssertEqual((error as? RenderError)?.message, "label is 400001 bytes; the limit is \(RenderSpec.maxLabelBytes)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(began), 1)
        XCTAssertNoThrow(try RenderSpec.parse([(key: "label", value: .string(String(repeating: "x", count: RenderSpec.maxLabelBytes)))]))
    }

    func testAHungProgressdIsATimeoutWithinTheBoundAndOthersAreServedMeanwhile() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let services = FileManager.default.temporaryDirectory.appendingPathComponent("render-services-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: services, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: services) }
        let bin = BuildProducts.url(of: "progress-render").deletingLastPathComponent().path
        try String(contentsOf: root.appendingPathComponent("dbus/org.progressd.Renderer1.service"), encoding: .utf8)
            .replacingOccurrences(of: "@bindir@", with: bin)
            .write(to: services.appendingPathComponent("org.progressd.Renderer1.service"), atomically: true, encoding: .utf8)
        let bus = try PrivateBus(serviceDirectory: services)
        defer { bus.stop() }
        let daemon = try DaemonProcess(bus: bus)
        let client = try bus.connect()
        _ = try client.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Start", [.string("copy"), .vardict([])])
        func render(_ spec: [(String, BusValue)]) throws {
            _ = try client.call(RendererService.busName, RendererService.path, RendererService.interface, "Render",
                                [.vardict(spec)], autoStart: true)
        }
        try render([("fraction", .double(0.5))])  // the service is up before the clock starts

        kill(daemon.process.processIdentifier, SIGSTOP)
        defer {
            kill(daemon.process.processIdentifier, SIGCONT)
            daemon.stop()
        }
        // The task's request waits for progressd without holding the next one.
        let began = Date()
        var outcome: Result<[BusValue], BusCallError>?
        var answeredAfter = 0.0
        client.callAsync(RendererService.busName, RendererService.path, RendererService.interface, "Render",
                         [.vardict([("task", .string("copy"))])], autoStart: true) { result in
            outcome = result
            answeredAfter = Date().timeIntervalSince(began)
        }
        client.flush()
        BusConnection.pump(seconds: 0.2) { false }
        let other = Date()
        try render([("fraction", .double(0.25)), ("label", .string("\u{202E}evil"))])
        XCTAssertLessThan(Date().timeIntervalSince(other), 1, "another request is served while one waits for progressd")
        XCTAssertNil(outcome, "the task's request is still waiting")
        XCTAssertTrue(BusConnection.pump(seconds: 10) { outcome != nil })
        guard case .failure(let error)? = outcome else { return XCTFail("\(String(describing: outcome))") }
        XCTAssertEqual(error.name, RendererService.errorPrefix + "Unavailable")
        XCTAssertTrue(error.message.contains("did not answer within 2000 ms"), error.message)
        XCTAssertGreaterThanOrEqual(answeredAfter, 1.5)
        XCTAssertLessThan(answeredAfter, 6, "the documented bound is 2 seconds")
    }
}
