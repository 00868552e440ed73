import CCairo
import CCairoLoader

/// Pixels as cairo draws them: ARGB, premultiplied alpha, one UInt32 each, row by row.
public struct Raster: Sendable {
    public let width: Int
    public let height: Int
    public let pixels: [UInt32]

    /// Reads a PNG (through cairo), as tests and tools compare images.
    public init(png: [UInt8]) throws(RenderError) {
        try Canvas.loadLibraries()
        let surface = try SkinPainter.decode(png, key: "image")
        defer { cairo_surface_destroy(surface) }
        let width = Int(cairo_image_surface_get_width(surface))
        let height = Int(cairo_image_surface_get_height(surface))
        let stride = Int(cairo_image_surface_get_stride(surface))
        let data = cairo_image_surface_get_data(surface)!
        var pixels: [UInt32] = []
        for y in 0..<height {
            let row = UnsafeRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
            pixels.append(contentsOf: UnsafeBufferPointer(start: row, count: width))
        }
        self.init(width: width, height: height, pixels: pixels)
    }

    public init(width: Int, height: Int, pixels: [UInt32]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The color at a device pixel, unpremultiplied.
    public func color(x: Int, y: Int) -> Color {
        let pixel = pixels[y * width + x]
        let alpha = Double(pixel >> 24) / 255
        guard alpha > 0 else { return Color(red: 0, green: 0, blue: 0, alpha: 0) }
        return Color(red: Double(pixel >> 16 & 0xFF) / 255 / alpha, green: Double(pixel >> 8 & 0xFF) / 255 / alpha,
                     blue: Double(pixel & 0xFF) / 255 / alpha, alpha: alpha)
    }
}

/// A rendered image: its bytes and size in device pixels.
public struct RenderedImage: Sendable {
    public let data: [UInt8]
    public let width: Int
    public let height: Int
    public let scale: Double
    public let format: RenderSpec.Format
}

/// A cairo surface of the spec's format, drawn in logical pixels, and its encoding.
/// PNG goes through libpng with settings for speed (see shim.h); SVG and PDF through
/// cairo's own surfaces, at the logical size (they are vectors).
final class Canvas {
    let context: OpaquePointer
    private let surface: OpaquePointer
    private let spec: RenderSpec
    private let output: StreamBuffer?

    init(_ spec: RenderSpec) throws(RenderError) {
        try Self.loadLibraries()
        self.spec = spec
        switch spec.format {
        case .png, .apng:
            output = nil
            surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(Self.devicePixels(spec.width, spec.scale)),
                                                 Int32(Self.devicePixels(spec.height, spec.scale)))
            cairo_surface_set_device_scale(surface, spec.scale, spec.scale)
        case .svg, .pdf:
            let buffer = StreamBuffer()
            output = buffer
            let closure = Unmanaged.passUnretained(buffer).toOpaque()
            let write: cairo_write_func_t = { closure, data, length in
                Unmanaged<StreamBuffer>.fromOpaque(closure!).takeUnretainedValue().bytes.append(
                    contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
                return CAIRO_STATUS_SUCCESS
            }
            surface = spec.format == .svg
                ? cairo_svg_surface_create_for_stream(write, closure, Double(spec.width), Double(spec.height))
                : cairo_pdf_surface_create_for_stream(write, closure, Double(spec.width), Double(spec.height))
        }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(surface)
            throw RenderError("cairo could not make a \(spec.width)x\(spec.height) surface")
        }
        context = cairo_create(surface)
    }

    deinit {
        cairo_destroy(context)
        cairo_surface_destroy(surface)
    }

    /// cairo, pango and libpng, opened before anything is drawn or encoded (the program is
    /// linked against none of them: Sources/CCairoLoader). One that can not be loaded is a
    /// refusal that names it and the dynamic loader's reason, never a crash; the next
    /// drawing tries again.
    static func loadLibraries() throws(RenderError) {
        guard let reason = ccairo_loader_open() else { return }
        throw RenderError("can not draw: \(String(cString: reason))", name: "DrawingUnavailable")
    }

    static func devicePixels(_ logical: Int, _ scale: Double) -> Int { Int((Double(logical) * scale).rounded(.up)) }

    /// Finishes drawing and encodes.
    func encode() throws(RenderError) -> RenderedImage {
        cairo_surface_flush(surface)
        switch spec.format {
        case .png, .apng:
            let width = Int(cairo_image_surface_get_width(surface))
            let height = Int(cairo_image_surface_get_height(surface))
            let data = try PNGEncoder.encode(
                cairo_image_surface_get_data(surface), width: width, height: height,
                stride: Int(cairo_image_surface_get_stride(surface)), scale: spec.scale)
            return RenderedImage(data: data, width: width, height: height, scale: spec.scale, format: .png)
        case .svg, .pdf:
            cairo_surface_finish(surface)
            return RenderedImage(
                data: output?.bytes ?? [], width: spec.width, height: spec.height, scale: 1, format: spec.format)
        }
    }

    /// The image surface's pixels.
    func raster() -> Raster {
        cairo_surface_flush(surface)
        let width = Int(cairo_image_surface_get_width(surface))
        let height = Int(cairo_image_surface_get_height(surface))
        let stride = Int(cairo_image_surface_get_stride(surface))
        let data = cairo_image_surface_get_data(surface)!
        var pixels: [UInt32] = []
        pixels.reserveCapacity(width * height)
        for y in 0..<height {
            let row = UnsafeRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
            pixels.append(contentsOf: UnsafeBufferPointer(start: row, count: width))
        }
        return Raster(width: width, height: height, pixels: pixels)
    }

    // MARK: Drawing helpers in logical pixels

    func setColor(_ color: Color) {
        cairo_set_source_rgba(context, color.red, color.green, color.blue, color.alpha)
    }

    /// A rectangle with fully rounded ends when `radius` is half its height.
    func roundedRectangle(x: Double, y: Double, width: Double, height: Double, radius: Double) {
        Self.roundedRectangle(context, x: x, y: y, width: width, height: height, radius: radius)
    }

    static func roundedRectangle(
        _ cr: OpaquePointer, x: Double, y: Double, width: Double, height: Double, radius: Double
    ) {
        let r = min(radius, width / 2, height / 2)
        cairo_new_sub_path(cr)
        cairo_arc(cr, x + width - r, y + r, r, -.pi / 2, 0)
        cairo_arc(cr, x + width - r, y + height - r, r, 0, .pi / 2)
        cairo_arc(cr, x + r, y + height - r, r, .pi / 2, .pi)
        cairo_arc(cr, x + r, y + r, r, .pi, 3 * .pi / 2)
        cairo_close_path(cr)
    }

    /// Text laid out by pango; returns its logical width and height.
    func layout(_ text: String, size: Double, bold: Bool) -> (layout: OpaquePointer, width: Double, height: Double) {
        let layout = pango_cairo_create_layout(context)!
        let font = pango_font_description_from_string(bold ? "Sans Bold" : "Sans")!
        pango_font_description_set_absolute_size(font, size * Double(PANGO_SCALE))
        pango_layout_set_font_description(layout, font)
        pango_font_description_free(font)
        pango_layout_set_text(layout, text, -1)
        var width: Int32 = 0
        var height: Int32 = 0
        pango_layout_get_pixel_size(layout, &width, &height)
        return (layout, Double(width), Double(height))
    }

    func show(_ layout: OpaquePointer, x: Double, y: Double) {
        cairo_move_to(context, x, y)
        pango_cairo_show_layout(context, layout)
    }

    func release(_ layout: OpaquePointer) {
        g_object_unref(UnsafeMutableRawPointer(layout))
    }
}

/// PNG through libpng (see shim.h for the settings).
public enum PNGEncoder {
    /// Encodes ARGB pixels (premultiplied, native endian, as cairo draws them), with a
    /// pHYs chunk of 96 dpi times `scale`.
    public static func encode(
        _ pixels: [UInt32], width: Int, height: Int, scale: Double = 1
    ) throws(RenderError) -> [UInt8] {
        var copy = pixels
        return try copy.withUnsafeMutableBytes { bytes in
            Result { () throws(RenderError) in
                try encode(
                    bytes.bindMemory(to: UInt8.self).baseAddress!, width: width, height: height, stride: width * 4,
                    scale: scale)
            }
        }.get()
    }

    static func encode(
        _ data: UnsafeMutablePointer<UInt8>, width: Int, height: Int, stride: Int, scale: Double
    ) throws(RenderError) -> [UInt8] {
        try Canvas.loadLibraries()
        var png: UnsafeMutablePointer<UInt8>?
        var length = 0
        let pixelsPerMetre = UInt32((96 / 0.0254 * scale).rounded())
        guard shim_png_encode(data, Int32(width), Int32(height), Int32(stride), pixelsPerMetre, &png, &length) == 0,
              let png else {
            throw RenderError("libpng could not encode the image")
        }
        defer { free(png) }
        return Array(UnsafeBufferPointer(start: png, count: length))
    }
}

/// Where cairo's SVG and PDF surfaces write.
private final class StreamBuffer {
    var bytes: [UInt8] = []
}
