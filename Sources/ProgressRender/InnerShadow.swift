import CCairo

#if canImport(Glibc)
import Glibc
#endif

/// The striped track's inner shadow, as CoreGraphics draws one: everything outside the
/// track casts a shadow (offset down and a little right, blurred), and only what falls
/// inside the track is painted, in translucent black.
///
/// Cairo has no blur. pixman's separable convolution with a Gaussian kernel does one, but
/// took about 6 ms for the 316x40 mask of a 300x24 bar on this machine (it runs a generic
/// per-pixel path), ten times drawing and encoding the whole bar; three running-sum box
/// blurs take about a tenth of a millisecond.
struct InnerShadow {
    /// CoreGraphics' numbers for the bar this one descends from (see the renderer reference).
    static let offset = (x: 0.5, y: 1.0)
    static let blur = 5.0
    static let opacity = 0.7

    /// Paints the shadow of the outside of a rounded rectangle into it; logical pixels.
    static func paint(on canvas: Canvas, width: Double, height: Double, radius: Double, scale: Double) {
        // A blur's standard deviation is half its radius, as for CSS box shadows.
        let sigma = blur / 2 * scale
        let margin = Int((3 * sigma).rounded(.up)) + 2
        let maskWidth = Canvas.devicePixels(Int(width.rounded(.up)), scale) + 2 * margin
        let maskHeight = Canvas.devicePixels(Int(height.rounded(.up)), scale) + 2 * margin
        let mask = cairo_image_surface_create(CAIRO_FORMAT_A8, Int32(maskWidth), Int32(maskHeight))!
        defer { cairo_surface_destroy(mask) }
        guard cairo_surface_status(mask) == CAIRO_STATUS_SUCCESS else { return }
        let shape = cairo_create(mask)!
        cairo_paint(shape)
        cairo_set_operator(shape, CAIRO_OPERATOR_CLEAR)
        cairo_scale(shape, scale, scale)
        let logicalMargin = Double(margin) / scale
        Canvas.roundedRectangle(
            shape, x: logicalMargin + offset.x, y: logicalMargin + offset.y, width: width, height: height,
            radius: radius)
        cairo_fill(shape)
        cairo_destroy(shape)
        cairo_surface_flush(mask)
        BoxBlur(standardDeviation: sigma).apply(
            to: cairo_image_surface_get_data(mask), width: maskWidth, height: maskHeight,
            stride: Int(cairo_image_surface_get_stride(mask)))
        cairo_surface_mark_dirty(mask)
        cairo_surface_set_device_scale(mask, scale, scale)

        let cr = canvas.context
        cairo_save(cr)
        canvas.roundedRectangle(x: 0, y: 0, width: width, height: height, radius: radius)
        cairo_clip(cr)
        cairo_set_source_rgba(cr, 0, 0, 0, opacity)
        cairo_mask_surface(cr, mask, -logicalMargin, -logicalMargin)
        cairo_restore(cr)
    }
}

/// A Gaussian blur approximated by three box blurs in each direction, as the Filter
/// Effects specification (feGaussianBlur) allows: box width d = floor(s * 3 * sqrt(2 pi) / 4
/// + 0.5), made odd so that every box is centred on its pixel. Pixels past the edges repeat
/// the edge. Rows first, then columns (box blurs along different axes commute); a line equal
/// to the one before it takes its result, which skips most of a bar's straight middle.
/// bench/render/render-bench.c carries the same arithmetic, so both draw the same pixels.
struct BoxBlur {
    let boxWidth: Int

    init(standardDeviation: Double) {
        boxWidth = Int((standardDeviation * 3 * (2 * Double.pi).squareRoot() / 4 + 0.5).rounded(.down)) | 1
    }

    /// Blurs 8-bit alpha in place.
    func apply(to pixels: UnsafeMutablePointer<UInt8>, width: Int, height: Int, stride: Int) {
        guard boxWidth > 1, width > 0, height > 0 else { return }
        let half = boxWidth / 2
        // The mean of a window, rounded, for every possible window sum: a division per
        // pixel costs more than the rest of the pass.
        let mean = UnsafeMutablePointer<UInt8>.allocate(capacity: 255 * boxWidth + 1)
        for sum in 0...(255 * boxWidth) { mean[sum] = UInt8((sum + half) / boxWidth) }
        var work = LineBuffers(capacity: max(width, height) + 2 * half + 1)
        defer {
            mean.deallocate()
            work.deallocate()
        }
        for y in 0..<height { blur(pixels + y * stride, count: width, step: 1, mean: mean, &work) }
        work.forget()
        for x in 0..<width { blur(pixels + x, count: height, step: stride, mean: mean, &work) }
    }

    /// Three box passes along one row (step 1) or column (step = stride). The buffers hold
    /// the line at offset `half`, with its edge values repeated into the `half` on each side.
    private func blur(
        _ line: UnsafeMutablePointer<UInt8>, count: Int, step: Int, mean: UnsafePointer<UInt8>,
        _ work: inout LineBuffers
    ) {
        let half = boxWidth / 2
        var repeatsPrevious = work.hasPrevious
        for i in 0..<count {
            let value = line[i &* step]
            repeatsPrevious = repeatsPrevious && work.previousInput[i] == value
            work.first[half &+ i] = value
        }
        if repeatsPrevious {
            for i in 0..<count { line[i &* step] = work.previousOutput[i] }
            return
        }
        work.previousInput.update(from: work.first + half, count: count)
        var source = work.first
        var target = work.second
        for _ in 0..<3 {
            for k in 0..<half {
                source[k] = source[half]
                source[half &+ count &+ k] = source[half &+ count &- 1]
            }
            var sum = 0
            for k in 0..<boxWidth { sum &+= Int(source[k]) }
            for i in 0..<count {
                target[half &+ i] = mean[sum]
                sum &+= Int(source[i &+ boxWidth]) &- Int(source[i])
            }
            swap(&source, &target)
        }
        for i in 0..<count { line[i &* step] = source[half &+ i] }
        work.previousOutput.update(from: source + half, count: count)
        work.hasPrevious = true
    }
}

/// The blur's scratch lines, and the last line blurred (input and output).
private struct LineBuffers {
    let first, second, previousInput, previousOutput: UnsafeMutablePointer<UInt8>
    var hasPrevious = false

    init(capacity: Int) {
        first = .allocate(capacity: capacity)
        second = .allocate(capacity: capacity)
        previousInput = .allocate(capacity: capacity)
        previousOutput = .allocate(capacity: capacity)
    }

    mutating func forget() { hasPrevious = false }

    func deallocate() {
        for buffer in [first, second, previousInput, previousOutput] { buffer.deallocate() }
    }
}
