import Foundation
import ProgressModel
@testable import ProgressRender
import XCTest

/// Geometry read from pixels, formats, and the rules every style keeps.
final class RendererTests: XCTestCase {
    func raster(_ change: (inout RenderSpec) -> Void) throws -> Raster {
        var spec = RenderSpec()
        change(&spec)
        return try ProgressRenderer.raster(spec)
    }

    func close(_ a: Color, _ b: Color, within tolerance: Double = 0.02) -> Bool {
        abs(a.red - b.red) <= tolerance && abs(a.green - b.green) <= tolerance && abs(a.blue - b.blue) <= tolerance
    }

    /// The first column, along the middle row and past the rounded end, whose color is no
    /// longer the fill's.
    func fillEdge(_ raster: Raster, fill: Color, fromRight: Bool = false) -> Int {
        let y = raster.height / 2
        let columns = fromRight ? Array((0..<raster.width - y).reversed()) : Array(y..<raster.width)
        let first = columns.first { !close(raster.color(x: $0, y: y), fill) } ?? raster.width
        return fromRight ? raster.width - 1 - first : first
    }

    func testHalfFillsHalfTheTrackWithinAPixel() throws {
        let image = try raster { $0.fraction = 0.5 }
        XCTAssertEqual(image.width, 300)
        XCTAssertEqual(image.height, 24)
        let fill = Theme.light.fill(for: .running, stalled: false)
        XCTAssertTrue(close(image.color(x: 20, y: 12), fill))
        XCTAssertTrue(close(image.color(x: 280, y: 12), Theme.light.track))
        XCTAssertEqual(Double(fillEdge(image, fill: fill)), 150, accuracy: 1)
    }

    func testHiDPIDoublesThePixelsNotTheGeometry() throws {
        let image = try raster { $0.fraction = 0.25; $0.scale = 2 }
        XCTAssertEqual(image.width, 600)
        XCTAssertEqual(image.height, 48)
        XCTAssertEqual(Double(fillEdge(image, fill: Theme.light.fill(for: .running, stalled: false))), 150, accuracy: 2)
    }

    func testRightToLeftMirrorsTheBar() throws {
        let ltr = try raster { $0.fraction = 0.3 }
        let rtl = try raster { $0.fraction = 0.3; $0.rightToLeft = true }
        var differing = 0
        for y in 0..<ltr.height {
            for x in 0..<ltr.width
            where !close(ltr.color(x: x, y: y), rtl.color(x: ltr.width - 1 - x, y: y), within: 0.05) {
                differing += 1
            }
        }
        XCTAssertLessThan(differing, ltr.width / 10, "the right-to-left bar is the left-to-right one mirrored")
        XCTAssertTrue(close(rtl.color(x: 290, y: 12), Theme.light.fill(for: .running, stalled: false)))
    }

    func testTheThinVariantLeavesTheEdgesClear() throws {
        let thin = try raster { $0.fraction = 1; $0.thin = true }
        XCTAssertEqual(thin.color(x: 150, y: 1).alpha, 0, "above the thin line")
        XCTAssertGreaterThan(thin.color(x: 150, y: 12).alpha, 0.9)
    }

    func testTheRingsGradientFollowsTheArcFromItsFirstColorToItsLast() throws {
        let red = Color(hex: 0xFF0000), blue = Color(hex: 0x0000FF)
        let image = try raster {
            $0.style = .ring
            $0.width = 200
            $0.height = 200
            $0.fraction = 1
            $0.lineWidth = 20
            $0.colors = [red, blue]
            $0.locations = [0, 1]
        }
        let painter = RingPainter(canvas: try Canvas(RenderSpec()), spec: {
            var spec = RenderSpec()
            spec.style = .ring; spec.width = 200; spec.height = 200; spec.lineWidth = 20
            return spec
        }(), indeterminate: false)
        func pixel(atDegrees degrees: Double) -> Color {
            let angle = degrees * .pi / 180
            return image.color(x: Int(100 + painter.radius * cos(angle)), y: Int(100 + painter.radius * sin(angle)))
        }
        XCTAssertTrue(close(pixel(atDegrees: -238), red, within: 0.08), "\(pixel(atDegrees: -238))")
        XCTAssertTrue(close(pixel(atDegrees: 58), blue, within: 0.08), "\(pixel(atDegrees: 58))")
        let middle = pixel(atDegrees: -90)
        XCTAssertEqual(middle.red, 0.5, accuracy: 0.08, "halfway along the arc, halfway between the colors")
        XCTAssertEqual(middle.blue, 0.5, accuracy: 0.08)
        XCTAssertEqual(pixel(atDegrees: 90).alpha, 0, accuracy: 0.01, "the gauge's gap at the bottom is empty")
    }

    func testEveryStateLooksDifferentInEveryTheme() throws {
        for theme in Theme.allCases {
            var seen: [Color] = []
            for (state, stalled) in [
                (TaskState.running, false), (.paused, false), (.finished, false), (.failed, false), (.running, true),
            ] {
                let image = try raster { $0.fraction = 1; $0.theme = theme; $0.state = state; $0.stalled = stalled }
                let color = image.color(x: 150, y: 12)
                XCTAssertFalse(
                    seen.contains { close($0, color, within: 0.05) },
                    "\(theme) \(state) stalled: \(stalled) looks like another state")
                seen.append(color)
            }
        }
    }

    func testHighContrastHasAThickOutlineAndNoMotion() throws {
        let image = try raster { $0.theme = .highContrast; $0.fraction = 0 }
        XCTAssertTrue(close(image.color(x: 150, y: 0), Color(hex: 0x000000), within: 0.1), "the outline")
        let first = try raster { $0.theme = .highContrast; $0.style = .pulse; $0.phase = 0.1 }
        let second = try raster { $0.theme = .highContrast; $0.style = .pulse; $0.phase = 0.7 }
        XCTAssertEqual(first.pixels, second.pixels, "no motion: every phase is the same frame")
        let moving = try raster { $0.style = .pulse; $0.phase = 0.7 }
        XCTAssertNotEqual(try raster { $0.style = .pulse; $0.phase = 0.1 }.pixels, moving.pixels)
    }

    func testAFlatStripedFillIsOneColorBetweenTheStripes() throws {
        let shaded = try raster { $0.style = .striped; $0.fraction = 1; $0.progressColor = Color(hex: 0x3584E4) }
        let flat = try raster {
            $0.style = .striped; $0.fraction = 1; $0.progressColor = Color(hex: 0x3584E4); $0.flatFill = true
        }
        // Column 12 at phase 0 falls in the gap of a stripe period (a quarter of each is empty).
        XCTAssertTrue(
            close(flat.color(x: 12, y: 6), flat.color(x: 12, y: 18), within: 0.01), "flat: top and bottom alike")
        XCTAssertFalse(
            close(shaded.color(x: 12, y: 6), shaded.color(x: 12, y: 18), within: 0.05), "shaded: lighter at the top")
    }

    func testLabelsAreReadableByWCAGLuminance() {
        XCTAssertEqual(BarPainter.readableText(on: Color(hex: 0x3584E4)).red, 0, "black on the light theme's blue")
        XCTAssertEqual(BarPainter.readableText(on: Color(hex: 0x1C1C1C)).red, 1, "white on near-black")
        // An RGB average would call this yellow dark (0.47); WCAG luminance knows it is light.
        XCTAssertEqual(BarPainter.readableText(on: Color(hex: 0xF6D32D)).red, 0)
    }

    func testFormats() throws {
        var spec = RenderSpec()
        spec.scale = 2
        let png = try ProgressRenderer.render(spec)
        XCTAssertEqual(Array(png.data.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        XCTAssertEqual(png.width, 600)
        // pHYs: 96 dpi times the scale, in pixels per metre (7559), for both axes.
        let pHYs = try XCTUnwrap(Data(png.data).range(of: Data("pHYs".utf8)))
        let value = png.data[pHYs.upperBound..<pHYs.upperBound + 4].reduce(0) { $0 << 8 | UInt32($1) }
        XCTAssertEqual(value, 7_559)
        spec.format = .svg
        XCTAssertTrue(String(decoding: try ProgressRenderer.render(spec).data, as: UTF8.self).hasPrefix("<?xml"))
        spec.format = .pdf
        XCTAssertEqual(String(decoding: try ProgressRenderer.render(spec).data.prefix(5), as: UTF8.self), "%PDF-")
    }

    func testEveryStyleDrawsAtTinyAndLargeSizes() throws {
        for style in RenderSpec.Style.allCases {
            for (width, height) in [(1, 1), (3, 40), (1024, 512)] {
                var spec = RenderSpec()
                spec.style = style
                spec.width = width
                spec.height = height
                spec.fraction = 0.7
                spec.label = "70%"
                if style == .skin {
                    spec.trackImage = try SkinTests.sliced(width: 30, height: 12)
                    spec.fillImage = try SkinTests.sliced(width: 20, height: 8)
                }
                XCTAssertFalse(try ProgressRenderer.render(spec).data.isEmpty, "\(style) \(width)x\(height)")
            }
        }
    }
}
