import ProgressModel
import ProgressRender
import XCTest

final class RenderSpecTests: XCTestCase {
    func parse(_ pairs: [(String, OptionValue)]) throws -> RenderSpec {
        try RenderSpec.parse(pairs.map { (key: $0.0, value: $0.1) })
    }

    func assertInvalid(_ pairs: [(String, OptionValue)], _ fragment: String, line: UInt = #line) {
        XCTAssertThrowsError(try parse(pairs), line: line) { error in
            let message = (error as? RenderError)?.message ?? "\(error)"
            XCTAssertTrue(message.contains(fragment), "'\(message)' lacks '\(fragment)'", line: line)
        }
    }

    func testEveryKey() throws {
        let spec = try parse([
            ("style", .string("ring")), ("width", .uint64(128)), ("height", .int32(64)), ("scale", .double(2)),
            ("format", .string("svg")), ("fraction", .double(0.4)), ("indeterminate", .bool(true)),
            ("state", .string("paused")), ("stalled", .bool(true)), ("theme", .string("high-contrast")),
            ("phase", .double(0.5)), ("label", .string("40%")),
            ("direction", .string("rtl")), ("variant", .string("bar")), ("progress-color", .string("#112233")),
            ("track-color", .string("#44556680")), ("start-angle", .double(90)), ("end-angle", .double(450)),
            ("line-width", .double(6)), ("colors", OptionValue(.strings(["#000000", "#FFFFFF"]), signature: "as")),
            ("locations", OptionValue(.doubles([0, 1]), signature: "ad")),
        ])
        XCTAssertEqual(spec.style, .ring)
        XCTAssertEqual(spec.width, 128)
        XCTAssertEqual(spec.scale, 2)
        XCTAssertEqual(spec.format, .svg)
        XCTAssertEqual(spec.state, .paused)
        XCTAssertEqual(spec.theme, .highContrast)
        XCTAssertTrue(spec.rightToLeft)
        XCTAssertTrue(spec.thin)
        XCTAssertEqual(spec.progressColor, Color(hex: 0x112233))
        XCTAssertEqual(spec.trackColor?.alpha ?? 0, 128.0 / 255, accuracy: 1e-9)
        XCTAssertEqual(spec.colors.count, 2)
    }

    func testEveryRefusalNamesTheKeyAndValue() {
        assertInvalid([("style", .string("donut"))], "style 'donut' is not one of bar, striped, ring, pulse")
        assertInvalid([("format", .string("gif"))], "format 'gif'")
        assertInvalid([("theme", .string("neon"))], "theme 'neon'")
        assertInvalid([("state", .string("sleeping"))], "state 'sleeping'")
        assertInvalid([("width", .uint64(0))], "width 0 is outside 1...4096")
        assertInvalid([("height", .uint64(100_000))], "height 100000")
        assertInvalid([("scale", .double(8))], "scale 8.0 is outside 0.5...4.0")
        assertInvalid([("fraction", .double(.nan))], "fraction nan")
        assertInvalid([("fraction", .string("half"))], "option 'fraction' expects a number (d), got type 's'")
        assertInvalid([("direction", .string("up"))], "direction 'up'")
        assertInvalid([("variant", .string("fat"))], "variant 'fat'")
        assertInvalid([("progress-color", .string("blue"))], "progress-color 'blue' is not a color")
        assertInvalid([("colors", OptionValue(.strings(["#000000"]), signature: "as"))], "colors needs 2 to 16 colors")
        assertInvalid([("locations", OptionValue(.doubles([0, 1]), signature: "ad"))], "one for each of the 3 colors")
        assertInvalid(
            [("locations", OptionValue(.doubles([1, 0.5, 0]), signature: "ad"))], "locations must rise from 0 to 1")
        assertInvalid(
            [("width", .uint64(4096)), ("height", .uint64(4096)), ("scale", .double(2))], "the limit is 16777216")
        assertInvalid([("bogus", .bool(true))], "option 'bogus' is not known to Render")
    }
}
