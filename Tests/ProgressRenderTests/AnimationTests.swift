import Foundation
@testable import ProgressRender
import ProgressTestSupport
import XCTest

final class AnimationTests: XCTestCase {
    /// Checks an APNG with Python's zlib, independently of our encoder: every chunk's CRC,
    /// the sequence numbers, and the frame counts. Prints "frames plays fcTL fdAT".
    static let checker = #"""
    import sys, struct, zlib
    data = open(sys.argv[1], "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "signature"
    offset, seq, counts, actl = 8, [], {}, None
    while offset < len(data):
        length, kind = struct.unpack(">I4s", data[offset:offset + 8])
        body = data[offset + 8:offset + 8 + length]
        crc, = struct.unpack(">I", data[offset + 8 + length:offset + 12 + length])
        assert zlib.crc32(kind + body) & 0xffffffff == crc, "CRC of " + kind.decode()
        counts[kind] = counts.get(kind, 0) + 1
        if kind == b"acTL": actl = struct.unpack(">II", body)
        if kind in (b"fcTL", b"fdAT"): seq.append(struct.unpack(">I", body[:4])[0])
        offset += 12 + length
    assert seq == list(range(len(seq))), "sequence numbers"
    print(actl[0], actl[1], counts.get(b"fcTL", 0), counts.get(b"fdAT", 0))
    """#

    func check(_ spec: RenderSpec) throws -> String {
        let image = try ProgressRenderer.render(spec)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("anim-\(UUID().uuidString).png")
        try Data(image.data).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try CommandResult.run(
            "/usr/bin/python3", ["-c", Self.checker, file.path], environment: ProcessInfo.processInfo.environment)
        XCTAssertEqual(result.status, 0, result.errors)
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testStripesLoopSeamlessly() throws {
        var spec = RenderSpec()
        spec.style = .striped
        spec.format = .apng
        spec.frames = 12
        spec.fraction = 0.6
        XCTAssertEqual(try check(spec), "12 0 12 11", "12 frames, looping forever")
        let frames = Animation.frames(of: spec)
        XCTAssertEqual(frames.map(\.phase), (0..<12).map { Double($0) / 12 }, "frame 12 would be frame 0: left out")
        XCTAssertNotEqual(try ProgressRenderer.raster(frames[0]).pixels, try ProgressRenderer.raster(frames[3]).pixels)
    }

    func testAValueChangePlaysOnceAlongItsCurve() throws {
        var spec = RenderSpec()
        spec.format = .apng
        spec.frames = 10
        spec.fromFraction = 0.2
        spec.fraction = 0.8
        XCTAssertEqual(try check(spec), "10 1 10 9", "played once")
        let fractions = Animation.frames(of: spec).map(\.fraction)
        XCTAssertEqual(fractions.first, 0.2)
        XCTAssertEqual(fractions.last ?? 0, 0.8, accuracy: 1e-12)
        XCTAssertEqual(fractions, fractions.sorted(), "ease-out never goes back")
        XCTAssertGreaterThan(fractions[1] - fractions[0], fractions[9] - fractions[8], "fast first, slow at the end")
        spec.easing = .spring
        let spring = (0...100).map { Animation.curve(.spring, bounciness: 12, at: Double($0) / 100) }
        XCTAssertGreaterThan(spring.max() ?? 0, 1, "a spring overshoots")
        XCTAssertEqual(spring.last, 1)
        XCTAssertEqual(Animation.frames(of: spec).last?.fraction ?? 0, 0.8, accuracy: 1e-12)
    }

    func testReducedMotionIsASingleFrame() throws {
        var spec = RenderSpec()
        spec.style = .pulse
        spec.format = .apng
        spec.reduceMotion = true
        XCTAssertEqual(try check(spec), "1 0 1 0")
        spec.reduceMotion = false
        spec.theme = .highContrast
        XCTAssertEqual(try check(spec), "1 0 1 0", "high contrast has no motion")
    }

    func testFramesCountTowardsThePixelLimit() {
        XCTAssertThrowsError(try RenderSpec.parse([
            (key: "format", value: .string("apng")), (key: "frames", value: .uint64(120)),
            (key: "width", value: .uint64(1_000)), (key: "height", value: .uint64(200)),
        ])) { error in
            XCTAssertTrue((error as? RenderError)?.message.contains("the limit is 16777216") == true, "\(error)")
        }
    }
}
