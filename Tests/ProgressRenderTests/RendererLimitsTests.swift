import Foundation
import ProgressBus
import ProgressClient
import ProgressModel
import ProgressRender
import ProgressRenderService
import ProgressTestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Issue 12: a 49 KB PNG declaring 20000x20000 was decoded in full before the size check
/// (4.8 s, +1.6 GB); a label of 200,000 combining marks took 75 s; with progressd hung,
/// Render {task} waited 25 s. Each is now refused within a documented bound.
final class RendererLimitsTests: DaemonTestCase {
    override var startsBusAtSetUp: Bool { false }

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

    /// The header's size is judged before cairo reads a pixel: the bomb cut after its header
    /// (nothing a decoder could read) is refused for its size, not as an unreadable PNG.
    func testAPNGBombIsRefusedFromItsHeader() throws {
        let bomb = try Self.bomb()
        let headerOnly = Array(bomb.prefix(33))  // signature, IHDR and its CRC
        for image in [bomb, headerOnly] {
            var spec = RenderSpec()
            spec.style = .skin
            spec.trackImage = image
            spec.fillImage = try SkinTests.sliced(width: 20, height: 8, capX: 8, capY: 3)
            XCTAssertThrowsError(try ProgressRenderer.raster(spec)) { error in
                XCTAssertEqual((error as? RenderError)?.name, "InvalidImage")
                XCTAssertEqual(
                    (error as? RenderError)?.message, "track-image is 20000x20000; the limit is 1024 a side",
                    "\(image.count) bytes")
            }
        }
    }

    /// The label's length in bytes is a refusal of the spec's parser, which shapes nothing.
    func testALongLabelIsRefusedBeforeShaping() {
        let marks = "a" + String(repeating: "\u{301}", count: 200_000)
        XCTAssertThrowsError(try RenderSpec.parse([(key: "label", value: .string(marks))])) { error in
            XCTAssertEqual(
                (error as? RenderError)?.message, "label is 400001 bytes; the limit is \(RenderSpec.maxLabelBytes)")
        }
        XCTAssertNoThrow(try RenderSpec.parse([
            (key: "label", value: .string(String(repeating: "x", count: RenderSpec.maxLabelBytes))),
        ]))
    }

    func testAHungProgressdIsATimeoutWithinTheBoundAndOthersAreServedMeanwhile() throws {
        try startBus(activating: ["org.progressd.Renderer1"])
        try startDaemon()
        _ = try client.call(
            BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Start", [.string("copy"), .vardict([])])
        func render(_ spec: [(String, BusValue)]) throws {
            _ = try client.call(RendererService.busName, RendererService.path, RendererService.interface, "Render",
                                [.vardict(spec)], autoStart: true)
        }
        try render([("fraction", .double(0.5))])  // the service is up before the clock starts

        kill(daemon.process.processIdentifier, SIGSTOP)
        defer { kill(daemon.process.processIdentifier, SIGCONT) }
        // The task's request waits for progressd without holding the next one: a request
        // sent after it on the same connection is answered first, while it still waits.
        var answered: [String] = []
        var outcome: Result<[BusValue], BusCallError>?
        client.callAsync(RendererService.busName, RendererService.path, RendererService.interface, "Render",
                         [.vardict([("task", .string("copy"))])], autoStart: true) { result in
            outcome = result
            answered.append("task")
        }
        var other: Result<[BusValue], BusCallError>?
        client.callAsync(RendererService.busName, RendererService.path, RendererService.interface, "Render",
                         [.vardict([("fraction", .double(0.25)), ("label", .string("\u{202E}evil"))])],
                         autoStart: true) { result in
            other = result
            answered.append("other")
        }
        XCTAssertTrue(BusConnection.pump(seconds: 20) { other != nil })
        if case .failure(let error)? = other { XCTFail("the other request: \(error)") }
        XCTAssertEqual(answered, ["other"], "another request is served while the task's waits for progressd")
        XCTAssertTrue(BusConnection.pump(seconds: 20) { outcome != nil })
        guard case .failure(let error)? = outcome else { return XCTFail("\(String(describing: outcome))") }
        XCTAssertEqual(error.name, RendererService.errorPrefix + "Unavailable")
        XCTAssertTrue(error.message.contains("did not answer within 2000 ms"), error.message)
    }
}
