import Foundation
import ProgressModel
@testable import ProgressRender
import XCTest

/// The striped track's inner shadow: blurred, from above, only inside the track; and the
/// box blur that approximates a Gaussian.
final class InnerShadowTests: XCTestCase {
    func striped(_ change: (inout RenderSpec) -> Void = { _ in }) throws -> Raster {
        var spec = RenderSpec()
        spec.style = .striped
        spec.fraction = 0
        change(&spec)
        return try ProgressRenderer.raster(spec)
    }

    /// The track's grey at a pixel, 0 (black) to 1.
    func grey(_ image: Raster, x: Int, y: Int) -> Double { image.color(x: x, y: y).green }

    func testTheShadowFallsFromAboveAndFadesTowardsTheMiddle() throws {
        let image = try striped()
        let column = 150
        let top = grey(image, x: column, y: 1)
        let upper = grey(image, x: column, y: 4)
        let middle = grey(image, x: column, y: 12)
        let bottom = grey(image, x: column, y: 22)
        XCTAssertLessThan(top, upper, "darkest at the top edge")
        XCTAssertLessThan(upper, middle, "fading, not a hard line")
        XCTAssertEqual(middle, 0.51, accuracy: 0.02, "the middle of the track is its own grey")
        XCTAssertLessThan(top, 0.4, "a visible shadow at the top")
        XCTAssertLessThan(top, bottom, "the offset puts the shadow above, not below")
        XCTAssertEqual(image.color(x: column, y: 0).alpha, 1, "nothing drawn outside the track")
    }

    func testTheShadowCanBeLeftOutAndHighContrastHasNone() throws {
        let plain = try striped { $0.innerShadow = false }
        XCTAssertEqual(grey(plain, x: 150, y: 1), 0.51, accuracy: 0.01)
        let highContrast = try striped { $0.theme = .highContrast }
        XCTAssertEqual(grey(highContrast, x: 150, y: 1), 0.51, accuracy: 0.01)
        let spec = try RenderSpec.parse([("style", .string("striped")), ("inner-shadow", .bool(false))])
        XCTAssertFalse(spec.innerShadow)
        XCTAssertThrowsError(try RenderSpec.parse([("inner-shadow", .string("yes"))]))
    }

    func testAtScaleTwoTheShadowKeepsItsLogicalSize() throws {
        let one = try striped()
        let two = try striped { $0.scale = 2 }
        for y in [1, 3, 6] {
            XCTAssertEqual(grey(two, x: 300, y: 2 * y + 1), grey(one, x: 150, y: y), accuracy: 0.06, "row \(y)")
        }
    }

    func testBoxWidthsFollowTheFilterEffectsFormula() {
        // d = floor(s * 3 * sqrt(2 pi) / 4 + 0.5), made odd.
        XCTAssertEqual(BoxBlur(standardDeviation: 2.5).boxWidth, 5)
        XCTAssertEqual(BoxBlur(standardDeviation: 5).boxWidth, 9)
        XCTAssertEqual(BoxBlur(standardDeviation: 0.2).boxWidth, 1)
    }

    func testThreeBoxesApproximateAGaussianAndKeepTheTotal() {
        let sigma = 5.0
        let count = 81
        var line = [UInt8](repeating: 0, count: count)
        line[count / 2] = 255
        line.withUnsafeMutableBufferPointer {
            BoxBlur(standardDeviation: sigma).apply(to: $0.baseAddress!, width: count, height: 1, stride: count)
        }
        // One row: only the horizontal passes move anything.
        let total = line.reduce(0) { $0 + Int($1) }
        XCTAssertEqual(Double(total), 255, accuracy: 12, "a blur moves light, it does not make or lose it")
        let peak = Double(line[count / 2])
        let gaussianPeak = 255 / (sigma * (2 * Double.pi).squareRoot())
        XCTAssertEqual(peak, gaussianPeak, accuracy: gaussianPeak * 0.25)
        XCTAssertEqual(Array(line[..<(count / 2)]), Array(line[(count / 2 + 1)...].reversed()), "symmetric")
        XCTAssertEqual(line[0], 0, "nothing beyond three boxes' reach")
    }

    func testAnEdgeBecomesAMonotonicRamp() {
        let count = 40
        var line = (0..<count).map { $0 < count / 2 ? UInt8(255) : 0 }
        line.withUnsafeMutableBufferPointer {
            BoxBlur(standardDeviation: 2.5).apply(to: $0.baseAddress!, width: count, height: 1, stride: count)
        }
        XCTAssertEqual(line.first, 255, "edges repeat: the padding stays opaque")
        XCTAssertEqual(line.last, 0)
        XCTAssertTrue(zip(line, line.dropFirst()).allSatisfy { $0 >= $1 })
        XCTAssertGreaterThan(line.filter { $0 > 0 && $0 < 255 }.count, 6, "a soft edge, several pixels wide")
    }
}
