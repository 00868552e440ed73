import CCairo

/// The skinned bar: a track image and a fill image, each stretched in nine slices (the
/// corners keep their size, the edges stretch one way, the centre both ways). Each slice
/// is drawn from a sub-surface of its own with EXTEND_PAD, so sampling at a seam never
/// reaches into the neighbouring slice: no colour bleeds across.
struct SkinPainter {
    let canvas: Canvas
    let spec: RenderSpec
    var cr: OpaquePointer { canvas.context }

    /// The fill sits inside the track: 1 pixel from the left and the top, 3 pixels less
    /// high, and floor(fraction × (track width − 2)) wide, as in the original skinned bar.
    static let fillInset = (left: 1.0, top: 1.0, heightLess: 3.0)

    func paint() throws(RenderError) {
        let track = try Self.decode(spec.trackImage ?? [], key: "track-image")
        defer { cairo_surface_destroy(track) }
        let fill = try Self.decode(spec.fillImage ?? [], key: "fill-image")
        defer { cairo_surface_destroy(fill) }
        let width = Double(spec.width), height = Double(spec.height)
        draw(track, caps: spec.trackCaps, into: (0, 0, width, height))
        let inner = width - 2 * Self.fillInset.left
        let filled = (spec.fraction * inner).rounded(.down)
        guard filled > 0 else { return }
        let x = spec.rightToLeft ? width - Self.fillInset.left - filled : Self.fillInset.left
        draw(
            fill, caps: spec.fillCaps,
            into: (x, Self.fillInset.top, filled, max(1, height - Self.fillInset.heightLess)))
    }

    private func draw(
        _ image: OpaquePointer, caps: (vertical: Double, horizontal: Double), into box: (Double, Double, Double, Double)
    ) {
        let imageWidth = Double(cairo_image_surface_get_width(image))
        let imageHeight = Double(cairo_image_surface_get_height(image))
        // Caps never take more than half of either the image or the box.
        let capX = min(caps.horizontal, imageWidth / 2, box.2 / 2)
        let capY = min(caps.vertical, imageHeight / 2, box.3 / 2)
        let sourceColumns = [(0.0, capX), (capX, imageWidth - 2 * capX), (imageWidth - capX, capX)]
        let sourceRows = [(0.0, capY), (capY, imageHeight - 2 * capY), (imageHeight - capY, capY)]
        let targetColumns = [(box.0, capX), (box.0 + capX, box.2 - 2 * capX), (box.0 + box.2 - capX, capX)]
        let targetRows = [(box.1, capY), (box.1 + capY, box.3 - 2 * capY), (box.1 + box.3 - capY, capY)]
        for row in 0..<3 {
            for column in 0..<3 {
                let source = (sourceColumns[column], sourceRows[row])
                let target = (targetColumns[column], targetRows[row])
                guard source.0.1 > 0, source.1.1 > 0, target.0.1 > 0, target.1.1 > 0 else { continue }
                let slice = cairo_surface_create_for_rectangle(image, source.0.0, source.1.0, source.0.1, source.1.1)!
                cairo_save(cr)
                cairo_rectangle(cr, target.0.0, target.1.0, target.0.1, target.1.1)
                cairo_clip(cr)
                cairo_translate(cr, target.0.0, target.1.0)
                cairo_scale(cr, target.0.1 / source.0.1, target.1.1 / source.1.1)
                cairo_set_source_surface(cr, slice, 0, 0)
                cairo_pattern_set_extend(cairo_get_source(cr), CAIRO_EXTEND_PAD)
                cairo_paint(cr)
                cairo_restore(cr)
                cairo_surface_destroy(slice)
            }
        }
    }

    /// A PNG from the caller's bytes, through cairo's reader; anything else is InvalidImage.
    static func decode(_ bytes: [UInt8], key: String) throws(RenderError) -> OpaquePointer {
        // The size from the header, before cairo allocates and decodes a single pixel: a
        // 49 KB PNG may declare 20000x20000 (1.6 GB of pixels).
        guard let (width, height) = Self.headerSize(bytes) else {
            throw RenderError("\(key) is not a PNG image (\(bytes.count) bytes)", name: "InvalidImage")
        }
        guard width <= RenderSpec.maxSkinSide, height <= RenderSpec.maxSkinSide else {
            throw RenderError(
                "\(key) is \(width)x\(height); the limit is \(RenderSpec.maxSkinSide) a side", name: "InvalidImage")
        }
        let reader = ByteReader(bytes)
        let surface = cairo_image_surface_create_from_png_stream({ closure, data, length in
            let reader = Unmanaged<ByteReader>.fromOpaque(closure!).takeUnretainedValue()
            guard reader.offset + Int(length) <= reader.bytes.count else { return CAIRO_STATUS_READ_ERROR }
            reader.bytes.withUnsafeBufferPointer { source in
                data!.update(from: source.baseAddress! + reader.offset, count: Int(length))
            }
            reader.offset += Int(length)
            return CAIRO_STATUS_SUCCESS
        }, Unmanaged.passUnretained(reader).toOpaque())!
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(surface)
            throw RenderError("\(key) is not a PNG image (\(bytes.count) bytes)", name: "InvalidImage")
        }
        return surface
    }

    /// Width and height from a PNG's IHDR, which the format requires to come first after
    /// the signature; nil for anything that does not start as a PNG does.
    static func headerSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard bytes.count >= 24, Array(bytes[0..<8]) == signature, Array(bytes[12..<16]) == Array("IHDR".utf8) else {
            return nil
        }
        func number(_ offset: Int) -> Int { bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (number(16), number(20))
    }
}

private final class ByteReader {
    let bytes: [UInt8]
    var offset = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
}
