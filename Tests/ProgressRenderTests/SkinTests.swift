import ProgressModel
@testable import ProgressRender
import XCTest

final class SkinTests: XCTestCase {
    static let red: UInt32 = 0xFFFF_0000, green: UInt32 = 0xFF00_FF00, blue: UInt32 = 0xFF00_00FF

    /// A 9-slice image for caps of 4 (vertical) and 9 (horizontal): red corners, green edges, a blue centre.
    static func sliced(width: Int, height: Int, capX: Int = 9, capY: Int = 4) throws -> [UInt8] {
        var pixels: [UInt32] = []
        for y in 0..<height {
            for x in 0..<width {
                let edgeX = x < capX || x >= width - capX
                let edgeY = y < capY || y >= height - capY
                pixels.append(edgeX && edgeY ? red : (edgeX || edgeY ? green : blue))
            }
        }
        return try PNGEncoder.encode(pixels, width: width, height: height)
    }

    func skin(_ change: (inout RenderSpec) -> Void = { _ in }) throws -> Raster {
        var spec = RenderSpec()
        spec.style = .skin
        spec.width = 300
        spec.height = 40
        spec.fraction = 0
        spec.trackImage = try Self.sliced(width: 30, height: 12)
        spec.fillImage = try Self.sliced(width: 20, height: 8, capX: 8, capY: 3)
        change(&spec)
        return try ProgressRenderer.raster(spec)
    }

    func exact(_ raster: Raster, _ x: Int, _ y: Int) -> UInt32 { raster.pixels[y * raster.width + x] }

    func testCornersKeepTheirSizeAndNoColorBleedsAtTheSeams() throws {
        let image = try skin()
        XCTAssertEqual(exact(image, 0, 0), Self.red)
        XCTAssertEqual(exact(image, 8, 3), Self.red, "the last pixel of the 9-by-4 corner")
        XCTAssertEqual(exact(image, 9, 0), Self.green, "the first pixel of the top edge: no red bled in")
        XCTAssertEqual(exact(image, 8, 4), Self.green, "the first pixel of the left edge")
        XCTAssertEqual(exact(image, 150, 0), Self.green)
        XCTAssertEqual(exact(image, 150, 20), Self.blue)
        XCTAssertEqual(exact(image, 9, 4), Self.blue, "the centre starts right at the corner's diagonal")
        XCTAssertEqual(exact(image, 299, 39), Self.red)
        XCTAssertEqual(exact(image, 291, 36), Self.red, "the bottom-right corner's first pixel")
        XCTAssertEqual(exact(image, 290, 39), Self.green, "the bottom edge, just left of that corner")
        XCTAssertEqual(exact(image, 291, 35), Self.green, "the right edge, just above it")
    }

    func testTheFillSitsInsideTheTrackAsTheOriginalDid() throws {
        let image = try skin { $0.fraction = 0.5 }
        // Fill: from x = 1, floor(0.5 × 298) = 149 wide; from y = 1, 37 high.
        XCTAssertEqual(exact(image, 1, 1), Self.red, "the fill's own corner")
        XCTAssertEqual(exact(image, 149, 1), Self.red, "the fill's top-right corner ends at x = 149")
        XCTAssertEqual(exact(image, 150, 1), Self.green, "past the fill: the track's top edge")
        XCTAssertEqual(exact(image, 100, 20), Self.blue)
    }

    func testBadImagesAreInvalidImage() {
        XCTAssertThrowsError(try skin { $0.trackImage = Array("not a png".utf8) }) { error in
            XCTAssertEqual((error as? RenderError)?.name, "InvalidImage")
            XCTAssertEqual((error as? RenderError)?.message, "track-image is not a PNG image (9 bytes)")
        }
        XCTAssertThrowsError(
            try skin { $0.fillImage = Array((try! Self.sliced(width: 30, height: 12)).prefix(40)) }) { error in
            XCTAssertEqual((error as? RenderError)?.name, "InvalidImage", "a truncated PNG")
        }
        XCTAssertThrowsError(try skin { $0.trackImage = try! Self.sliced(width: 1_100, height: 10) }) { error in
            XCTAssertEqual((error as? RenderError)?.message, "track-image is 1100x10; the limit is 1024 a side")
        }
        XCTAssertThrowsError(try RenderSpec.parse([(key: "style", value: .string("skin"))])) { error in
            XCTAssertEqual(
                (error as? RenderError)?.message, "style 'skin' needs track-image and fill-image (PNG bytes)")
        }
    }
}
