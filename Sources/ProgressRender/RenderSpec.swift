import ProgressModel

/// A spec the renderer refuses: org.progressd.Renderer1.Error.InvalidSpec (or InvalidImage
/// for a skin image that is not a usable PNG), with the key and value; or DrawingUnavailable
/// when cairo, pango or libpng can not be loaded, with the library and the reason.
public struct RenderError: Error, Equatable, CustomStringConvertible {
    public let message: String
    /// The last part of the D-Bus error name.
    public let name: String
    public init(_ message: String, name: String = "InvalidSpec") {
        self.message = message
        self.name = name
    }
    public var description: String { message }
}

/// What to draw. Sizes are logical pixels; `scale` makes device pixels (HiDPI).
public struct RenderSpec: Sendable {
    public enum Style: String, CaseIterable, Sendable { case bar, striped, ring, pulse, skin }
    public enum Format: String, CaseIterable, Sendable { case png, svg, pdf, apng }
    public enum Easing: String, CaseIterable, Sendable { case easeOut = "ease-out", spring }

    public var style = Style.bar
    public var width = 300
    public var height = 24
    public var scale = 1.0
    public var format = Format.png
    public var fraction = 0.0
    public var indeterminate = false
    public var state = TaskState.running
    public var stalled = false
    public var theme = Theme.light
    /// Animation phase, 0 to 1: where the stripes or the pulse are.
    public var phase = 0.0
    /// The label to draw (already localized by the caller); nil for none.
    public var label: String?
    /// Right-to-left locales fill bars from the right and put the label on the left.
    public var rightToLeft = false
    /// The thin `bar` variant of the platform bar, for toolbars.
    public var thin = false
    /// Striped: a flat fill instead of the shaded one.
    public var flatFill = false
    /// Striped: the track's inner shadow (never in high contrast).
    public var innerShadow = true
    public var progressColor: Color?
    public var trackColor: Color?
    /// Ring: where the arc starts and ends, in degrees clockwise from 3 o'clock.
    public var startAngle = -240.0
    public var endAngle = 60.0
    public var lineWidth: Double?
    /// Ring: the gradient along the arc, and where each color sits (0 to 1).
    public var colors: [Color] = [Color(hex: 0x2EC27E), Color(hex: 0xF6D32D), Color(hex: 0xE01B24)]
    public var locations: [Double] = [0, 0.5, 1]
    /// Skin: PNG images of the track and the fill, and their caps (the corners that keep
    /// their size) as vertical and horizontal widths in image pixels.
    public var trackImage: [UInt8]?
    public var fillImage: [UInt8]?
    /// Animation (format apng): how many frames over how long. Without `fromFraction` the
    /// frames loop the stripes or the pulse seamlessly; with it they move the value from
    /// there to `fraction`, once, along `easing`.
    public var frames = 24
    public var duration = 1.0
    public var fromFraction: Double?
    public var easing = Easing.easeOut
    /// How far a spring overshoots and rings, 0 to 20 (the original's 12).
    public var bounciness = 12.0
    /// A single frame, as people who turn motion off expect (the high-contrast theme too).
    public var reduceMotion = false
    public var trackCaps = (vertical: 4.0, horizontal: 9.0)
    public var fillCaps = (vertical: 3.0, horizontal: 8.0)

    /// Limits, each with its reason: a side of 4096 logical pixels is larger than any panel
    /// or notification needs; scale 4 covers every HiDPI screen; 16 M device pixels bound the
    /// memory of one image (64 MB) whatever the combination.
    public static let maxSide = 4_096
    public static let scaleRange = 0.5...4.0
    public static let maxDevicePixels = 16_777_216
    public static let maxColors = 16
    /// Frames: two seconds at 60 fps; more is a video, not a progress picture.
    public static let maxFrames = 120
    /// A skin image is a small picture that stretches: 1024 pixels a side and 4 MB are plenty.
    public static let maxSkinSide = 1_024
    public static let maxSkinBytes = 4 * 1_024 * 1_024
    /// A label is a percent, a count or a word or two beside a bar; 256 bytes is more than
    /// any of those, and bounds the time pango may take to shape it (200,000 combining
    /// marks took 75 seconds).
    public static let maxLabelBytes = 256

    /// Checks a label's length, before any shaping.
    public static func checkedLabel(_ text: String) throws(RenderError) -> String {
        let bytes = text.utf8.count
        guard bytes <= maxLabelBytes else {
            throw RenderError("label is \(bytes) bytes; the limit is \(maxLabelBytes)")
        }
        return text
    }

    public init() {}

    public static let keys = [
        "style", "width", "height", "scale", "format", "fraction", "indeterminate", "state", "stalled", "theme",
        "phase", "label", "direction", "variant", "progress-color", "track-color", "start-angle", "end-angle",
        "line-width", "colors", "locations", "track-image", "fill-image", "track-caps", "fill-caps", "frames",
        "duration", "from-fraction", "easing", "bounciness", "reduce-motion", "fill", "inner-shadow",
    ]

    public static func parse(_ options: [(key: String, value: OptionValue)]) throws(RenderError) -> RenderSpec {
        var spec = RenderSpec()
        var reader = OptionReader(for: "Render", accepting: keys)
        for (key, value) in options {
            try checked(reader.admit(key))
            switch key {
            case "style": spec.style = try checked(reader.choice(key, value, Style.self))
            case "format": spec.format = try checked(reader.choice(key, value, Format.self))
            case "theme": spec.theme = try checked(reader.choice(key, value, Theme.self))
            case "state": spec.state = try checked(reader.choice(key, value, TaskState.self))
            case "width": spec.width = try checked(reader.whole(key, value, in: 1...maxSide))
            case "height": spec.height = try checked(reader.whole(key, value, in: 1...maxSide))
            case "scale": spec.scale = try checked(reader.number(key, value, in: scaleRange))
            case "fraction": spec.fraction = try checked(reader.number(key, value, in: 0...1))
            case "phase": spec.phase = try checked(reader.number(key, value, in: 0...1))
            case "start-angle": spec.startAngle = try checked(reader.number(key, value, in: -720...720))
            case "end-angle": spec.endAngle = try checked(reader.number(key, value, in: -720...720))
            case "line-width": spec.lineWidth = try checked(reader.number(key, value, in: 0.5...Double(maxSide)))
            case "indeterminate": spec.indeterminate = try checked(reader.flag(key, value))
            case "stalled": spec.stalled = try checked(reader.flag(key, value))
            case "label": spec.label = try checkedLabel(checked(reader.text(key, value)))
            case "direction": spec.rightToLeft = try checked(reader.choice(key, value, Direction.self)) == .rtl
            case "variant": spec.thin = try checked(reader.choice(key, value, Variant.self)) == .bar
            case "progress-color": spec.progressColor = try color(key, checked(reader.text(key, value)))
            case "track-color": spec.trackColor = try color(key, checked(reader.text(key, value)))
            case "colors":
                let texts = try checked(reader.strings(key, value))
                guard (2...maxColors).contains(texts.count) else {
                    throw RenderError(
                        "colors needs 2 to \(maxColors) colors as an array of strings (as), "
                            + "such as ['#2EC27E', '#E01B24']")
                }
                spec.colors = try texts.map { text throws(RenderError) in try color(key, text) }
            case "locations": spec.locations = try checked(reader.doubles(key, value))
            case "fill": spec.flatFill = try checked(reader.choice(key, value, Fill.self)) == .flat
            case "inner-shadow": spec.innerShadow = try checked(reader.flag(key, value))
            case "frames": spec.frames = try checked(reader.whole(key, value, in: 1...maxFrames))
            case "duration": spec.duration = try checked(reader.number(key, value, in: 0.1...10))
            case "from-fraction": spec.fromFraction = try checked(reader.number(key, value, in: 0...1))
            case "easing": spec.easing = try checked(reader.choice(key, value, Easing.self))
            case "bounciness": spec.bounciness = try checked(reader.number(key, value, in: 0...20))
            case "reduce-motion": spec.reduceMotion = try checked(reader.flag(key, value))
            case "track-image", "fill-image":
                let bytes = try checked(reader.bytes(key, value))
                guard bytes.count <= maxSkinBytes else {
                    throw RenderError(
                        "\(key) is \(bytes.count) bytes; the limit is \(maxSkinBytes)", name: "InvalidImage")
                }
                if key == "track-image" { spec.trackImage = bytes } else { spec.fillImage = bytes }
            case "track-caps", "fill-caps":
                let caps = try checked(reader.doubles(key, value))
                guard caps.count == 2, caps.allSatisfy({ $0.isFinite && (0...512).contains($0) }) else {
                    throw RenderError("\(key) needs two numbers (ad), the vertical and horizontal caps, 0 to 512")
                }
                if key == "track-caps" {
                    spec.trackCaps = (caps[0], caps[1])
                } else {
                    spec.fillCaps = (caps[0], caps[1])
                }
            default: preconditionFailure("option \(key) is accepted but not read")
            }
        }
        if spec.locations.count != spec.colors.count || spec.locations != spec.locations.sorted()
            || !spec.locations.allSatisfy({ (0...1).contains($0) }) {
            throw RenderError("locations must rise from 0 to 1, one for each of the \(spec.colors.count) colors")
        }
        if spec.style == .skin && (spec.trackImage == nil || spec.fillImage == nil) {
            throw RenderError("style 'skin' needs track-image and fill-image (PNG bytes)")
        }
        let pixels = Double(spec.width) * Double(spec.height) * spec.scale * spec.scale
            * Double(spec.format == .apng ? spec.frames : 1)
        if pixels > Double(maxDevicePixels) {
            throw RenderError(
                "\(spec.width)x\(spec.height) at scale \(spec.scale) is \(Int(pixels)) device pixels; "
                    + "the limit is \(maxDevicePixels)")
        }
        return spec
    }

    /// The choices of the keys that pick one of a few words.
    private enum Direction: String, CaseIterable { case ltr, rtl }
    private enum Variant: String, CaseIterable { case `default`, bar }
    private enum Fill: String, CaseIterable { case gradient, flat }

    /// The option reader's checks, refused as a render spec is.
    private static func checked<Value>(
        _ value: @autoclosure () throws(ProgressError) -> Value
    ) throws(RenderError) -> Value {
        do { return try value() } catch { throw RenderError(error.message) }
    }

    private static func color(_ key: String, _ text: String) throws(RenderError) -> Color {
        guard let color = Color(text) else { throw RenderError("\(key) '\(text)' is not a color such as '#3584E4'") }
        return color
    }
}
