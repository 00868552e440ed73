import CCairo
import ProgressModel

#if canImport(Glibc)
import Glibc
#endif

/// Draws progress: the platform bar, the striped bar, the gradient ring, and their
/// indeterminate (pulse) frames, in three themes, with every state looking different.
public enum ProgressRenderer {
    public static func render(_ spec: RenderSpec) throws(RenderError) -> RenderedImage {
        guard spec.format == .apng else { return try draw(spec).encode() }
        var frames: [[UInt8]] = []
        var size = (width: 0, height: 0)
        for frame in Animation.frames(of: spec) {
            let image = try draw(frame).encode()
            frames.append(image.data)
            size = (image.width, image.height)
        }
        let data = Animation.assemble(
            frames, width: size.width, height: size.height,
            delayMilliseconds: Int((spec.duration * 1_000 / Double(frames.count)).rounded()),
            loops: spec.fromFraction == nil)
        return RenderedImage(data: data, width: size.width, height: size.height, scale: spec.scale, format: .apng)
    }

    /// The drawn pixels before encoding (ARGB, premultiplied, row by row), for tests and
    /// callers that composite themselves. PNG specs only.
    public static func raster(_ spec: RenderSpec) throws(RenderError) -> Raster {
        var png = spec
        png.format = .png
        return try draw(png).raster()
    }

    private static func draw(_ spec: RenderSpec) throws(RenderError) -> Canvas {
        let canvas = try Canvas(spec)
        let indeterminate = spec.indeterminate || spec.style == .pulse
        switch (spec.style, indeterminate) {
        case (.skin, _): try SkinPainter(canvas: canvas, spec: spec).paint()
        case (.ring, _): RingPainter(canvas: canvas, spec: spec, indeterminate: indeterminate).paint()
        case (.striped, _): BarPainter(canvas: canvas, spec: spec).paintStriped(indeterminate: indeterminate)
        case (_, true): BarPainter(canvas: canvas, spec: spec).paintPulse()
        case (_, false): BarPainter(canvas: canvas, spec: spec).paintPlain()
        }
        return canvas
    }
}

/// The bars: plain, striped, and the pulse.
struct BarPainter {
    let canvas: Canvas
    let spec: RenderSpec
    var cr: OpaquePointer { canvas.context }
    var width: Double { Double(spec.width) }
    var height: Double { Double(spec.height) }
    var fill: Color { spec.progressColor ?? spec.theme.fill(for: spec.state, stalled: spec.stalled) }
    var track: Color { spec.trackColor ?? spec.theme.track }
    /// The striped bar's track: the reference bar's grey in every theme.
    var stripedTrack: Color { spec.trackColor ?? Color(red: 0.51, green: 0.51, blue: 0.51) }

    /// The track's rectangle: the whole height, or a thin line for the `bar` variant.
    var trackBox: (y: Double, height: Double) {
        spec.thin ? ((height - max(2, height / 3)) / 2, max(2, height / 3)) : (0, height)
    }

    /// The filled part, from the left, or from the right in right-to-left locales.
    var fillBox: (x: Double, width: Double) {
        let filled = width * spec.fraction
        return (spec.rightToLeft ? width - filled : 0, filled)
    }

    func trackPath() {
        canvas.roundedRectangle(x: 0, y: trackBox.y, width: width, height: trackBox.height, radius: trackBox.height / 2)
    }

    func paintTrack() {
        trackPath()
        canvas.setColor(track)
        cairo_fill(cr)
    }

    func outlineTrack() {
        guard spec.theme.outlineWidth > 0 else { return }
        let inset = spec.theme.outlineWidth / 2
        canvas.roundedRectangle(x: inset, y: trackBox.y + inset, width: width - 2 * inset,
                                height: trackBox.height - 2 * inset, radius: (trackBox.height - 2 * inset) / 2)
        canvas.setColor(Color(hex: 0x000000))
        cairo_set_line_width(cr, spec.theme.outlineWidth)
        cairo_stroke(cr)
    }

    func paintPlain() {
        paintTrack()
        cairo_save(cr)
        trackPath()
        cairo_clip(cr)
        cairo_rectangle(cr, fillBox.x, trackBox.y, fillBox.width, trackBox.height)
        canvas.setColor(fill)
        cairo_fill(cr)
        cairo_restore(cr)
        outlineTrack()
        paintLabel(insideFill: false)
    }

    /// A segment moving along the track with the phase; without motion (high contrast),
    /// it rests in the middle.
    func paintPulse() {
        paintTrack()
        let segment = width * 0.3
        let x = spec.theme.allowsMotion ? spec.phase * (width + segment) - segment : (width - segment) / 2
        cairo_save(cr)
        trackPath()
        cairo_clip(cr)
        canvas.roundedRectangle(x: spec.rightToLeft ? width - x - segment : x, y: trackBox.y, width: segment,
                                height: trackBox.height, radius: trackBox.height / 2)
        canvas.setColor(fill)
        cairo_fill(cr)
        cairo_restore(cr)
        outlineTrack()
    }

    /// The CoreGraphics-style bar: a track with an inner shadow from above, a fill shaded from
    /// lighter to darker, diagonal stripes moving with the phase, a darker outline, and the label.
    func paintStriped(indeterminate: Bool) {
        let radius = height / 2
        canvas.roundedRectangle(x: 0, y: 0, width: width, height: height, radius: radius)
        canvas.setColor(stripedTrack)
        cairo_fill(cr)
        if spec.theme.allowsGradients && spec.innerShadow {
            InnerShadow.paint(on: canvas, width: width, height: height, radius: radius, scale: spec.scale)
        }
        let box = indeterminate ? (x: 0.0, width: width) : fillBox
        guard box.width > 0 else { return paintLabel(insideFill: true) }
        let color = fill
        canvas.roundedRectangle(x: box.x, y: 0, width: box.width, height: height, radius: min(radius, box.width / 2))
        if spec.theme.allowsGradients && !spec.flatFill {
            let gradient = cairo_pattern_create_linear(0, 0, 0, height)
            let light = color.brightness(times: 1.3)
            let dark = color.brightness(times: 0.75)
            cairo_pattern_add_color_stop_rgba(gradient, 0, light.red, light.green, light.blue, light.alpha)
            cairo_pattern_add_color_stop_rgba(gradient, 1, dark.red, dark.green, dark.blue, dark.alpha)
            cairo_set_source(cr, gradient)
            cairo_fill_preserve(cr)
            cairo_pattern_destroy(gradient)
        } else {
            canvas.setColor(color)
            cairo_fill_preserve(cr)
        }
        // Stripes: parallelograms a stripe-width apart, a quarter of each period empty,
        // clipped to the fill's rounded shape.
        cairo_save(cr)
        cairo_clip(cr)
        let period = max(8, height * 1.6)
        let offset = -period + (spec.theme.allowsMotion ? spec.phase : 0) * period
        var x = box.x + offset
        while x < box.x + box.width {
            cairo_move_to(cr, x, height)
            cairo_line_to(cr, x + 0.25 * period, 0)
            cairo_line_to(cr, x + 0.75 * period, 0)
            cairo_line_to(cr, x + 0.5 * period, height)
            cairo_close_path(cr)
            x += period
        }
        cairo_set_source_rgba(cr, 1, 1, 1, 0.2)
        cairo_fill(cr)
        cairo_restore(cr)
        // The outline: the fill's path again, a doubly darker shade.
        canvas.roundedRectangle(x: box.x, y: 0, width: box.width, height: height, radius: min(radius, box.width / 2))
        let outline = color.brightness(times: 0.75).brightness(times: 0.75)
        canvas.setColor(outline)
        cairo_set_line_width(cr, max(1, spec.theme.outlineWidth))
        cairo_stroke(cr)
        if !indeterminate { paintLabel(insideFill: true) }
    }

    /// The label: inside the fill's end (striped) or centred (plain), in black or white at
    /// 60 %, each chosen by WCAG luminance for the pixels actually under it — where the text
    /// straddles the fill's edge, each side gets its own color.
    func paintLabel(insideFill: Bool) {
        guard let label = spec.label, !label.isEmpty else { return }
        let text = canvas.layout(label, size: max(6, trackBox.height * 0.55), bold: true)
        defer { canvas.release(text.layout) }
        let padding = 6.0
        var x: Double
        if insideFill {
            let box = fillBox
            x = spec.rightToLeft ? box.x + padding : box.x + box.width - padding - text.width
            // Too short a fill: the label goes just past it, over the track.
            if box.width < text.width + 2 * padding {
                x = spec.rightToLeft ? box.x - padding - text.width : box.x + box.width + padding
            }
        } else {
            x = (width - text.width) / 2
        }
        let y = trackBox.y + (trackBox.height - text.height) / 2
        // Striped bars are shaded around `fill`; its middle is what the text sits on.
        let trackUnder = insideFill ? stripedTrack : track
        for (region, background) in [(fillBox, fill), (trackRegion(), trackUnder)] {
            cairo_save(cr)
            cairo_rectangle(cr, region.x, 0, region.width, height)
            cairo_clip(cr)
            canvas.setColor(Self.readableText(on: background))
            canvas.show(text.layout, x: x, y: y)
            cairo_restore(cr)
        }
    }

    private func trackRegion() -> (x: Double, width: Double) {
        spec.rightToLeft ? (0, width - fillBox.width) : (fillBox.width, width - fillBox.width)
    }

    /// Black or white at 60 %, whichever contrasts more with `background` (WCAG).
    static func readableText(on background: Color) -> Color {
        let luminance = background.luminance
        let withBlack = (luminance + 0.05) / 0.05
        let withWhite = 1.05 / (luminance + 0.05)
        return withBlack >= withWhite
            ? Color(red: 0, green: 0, blue: 0, alpha: 0.6) : Color(red: 1, green: 1, blue: 1, alpha: 0.6)
    }
}

/// The ring: a round-capped arc over a translucent track, colored by a gradient that
/// follows the arc. Cairo has no conic gradient, so the gradient is a mesh pattern of
/// annular sectors, a few degrees each, extended past both ends so the caps take the
/// first and last colors.
struct RingPainter {
    let canvas: Canvas
    let spec: RenderSpec
    let indeterminate: Bool
    var cr: OpaquePointer { canvas.context }

    var lineWidth: Double { spec.lineWidth ?? max(2, Double(min(spec.width, spec.height)) * 0.1) }
    var center: (x: Double, y: Double) { (Double(spec.width) / 2, Double(spec.height) / 2) }
    var radius: Double { Double(min(spec.width, spec.height)) / 2 - lineWidth / 2 - 1 }
    var start: Double { spec.startAngle * .pi / 180 }
    var end: Double { spec.endAngle * .pi / 180 }

    func paint() {
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
        cairo_set_line_width(cr, lineWidth)
        cairo_new_path(cr)
        cairo_arc(cr, center.x, center.y, radius, start, end)
        canvas.setColor((spec.trackColor ?? spec.theme.track).with(alpha: spec.theme == .highContrast ? 1 : 0.5))
        cairo_stroke(cr)
        let span = end - start
        let (from, to): (Double, Double) = indeterminate
            ? (start + (spec.theme.allowsMotion ? spec.phase : 0) * span,
               start + ((spec.theme.allowsMotion ? spec.phase : 0) + 0.25) * span)
            : (start, start + span * spec.fraction)
        guard to > from else { return paintLabel() }
        let pattern = gradient()
        cairo_set_source(cr, pattern)
        cairo_new_path(cr)
        cairo_arc(cr, center.x, center.y, radius, from, to)
        cairo_stroke(cr)
        cairo_pattern_destroy(pattern)
        paintLabel()
    }

    /// The color at a point along the gauge, 0 at its start and 1 at its end.
    func color(at position: Double) -> Color {
        let colors = spec.progressColor.map { [$0, $0] }
            ?? (spec.theme.allowsGradients
                ? spec.colors : [spec.theme.fill(for: spec.state, stalled: spec.stalled)] * 2)
        let locations = spec.progressColor != nil || !spec.theme.allowsGradients ? [0, 1] : spec.locations
        let t = min(1, max(0, position))
        guard let upper = locations.firstIndex(where: { $0 >= t }), upper > 0 else { return colors[0] }
        let lower = upper - 1
        let local = (t - locations[lower]) / max(1e-9, locations[upper] - locations[lower])
        let a = colors[lower], b = colors[upper]
        return Color(red: a.red + (b.red - a.red) * local, green: a.green + (b.green - a.green) * local,
                     blue: a.blue + (b.blue - a.blue) * local, alpha: a.alpha + (b.alpha - a.alpha) * local)
    }

    private func gradient() -> OpaquePointer {
        let mesh = cairo_pattern_create_mesh()!
        let span = end - start
        let step = 4 * Double.pi / 180
        let inner = radius - lineWidth / 2 - 1
        let outer = radius + lineWidth / 2 + 1
        // Past each end by the cap's reach, in the end's color.
        let cap = (lineWidth / 2 + 1) / radius
        var angle = start - cap
        while angle < end + cap {
            let next = min(angle + step, end + cap)
            let first = color(at: (angle - start) / span)
            let second = color(at: (next - start) / span)
            cairo_mesh_pattern_begin_patch(mesh)
            cairo_mesh_pattern_move_to(mesh, center.x + inner * cos(angle), center.y + inner * sin(angle))
            cairo_mesh_pattern_line_to(mesh, center.x + outer * cos(angle), center.y + outer * sin(angle))
            cairo_mesh_pattern_line_to(mesh, center.x + outer * cos(next), center.y + outer * sin(next))
            cairo_mesh_pattern_line_to(mesh, center.x + inner * cos(next), center.y + inner * sin(next))
            for (corner, color) in [(0, first), (1, first), (2, second), (3, second)] {
                cairo_mesh_pattern_set_corner_color_rgba(
                    mesh, UInt32(corner), color.red, color.green, color.blue, color.alpha)
            }
            cairo_mesh_pattern_end_patch(mesh)
            angle = next
        }
        return mesh
    }

    private func paintLabel() {
        guard let label = spec.label, !label.isEmpty else { return }
        let text = canvas.layout(label, size: max(6, radius * 0.45), bold: true)
        defer { canvas.release(text.layout) }
        canvas.setColor(spec.theme == .dark ? Color(hex: 0xFFFFFF) : Color(hex: 0x000000))
        canvas.show(text.layout, x: center.x - text.width / 2, y: center.y - text.height / 2)
    }
}

private func * (colors: [Color], count: Int) -> [Color] { Array(repeating: colors, count: count).flatMap { $0 } }
