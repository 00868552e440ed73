import ProgressCore

/// A spec the renderer refuses: org.progressd.Renderer1.Error.InvalidSpec (or InvalidImage
/// for a skin image that is not a usable PNG), with the key and value.
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

    public init() {}

    public static let keys = [
        "style", "width", "height", "scale", "format", "fraction", "indeterminate", "state", "stalled", "theme", "phase",
        "label", "direction", "variant", "progress-color", "track-color", "start-angle", "end-angle", "line-width",
        "colors", "locations", "track-image", "fill-image", "track-caps", "fill-caps", "frames", "duration",
        "from-fraction", "easing", "bounciness", "reduce-motion", "fill",
        "inner-shadow",
    ]

    public static func parse(_ options: [(key: String, value: OptionValue)]) throws(RenderError) -> RenderSpec {
        var spec = RenderSpec()
        for (key, value) in options {
            switch key {
            case "style": spec.style = try choice(key, value, Style.self)
            case "format": spec.format = try choice(key, value, Format.self)
            case "theme": spec.theme = try choice(key, value, Theme.self)
            case "state":
                guard let state = TaskState(rawValue: try text(key, value)) else {
                    throw RenderError("state '\(try text(key, value))' is not one of running, paused, finished, failed, cancelled")
                }
                spec.state = state
            case "width": spec.width = try whole(key, value, in: 1...maxSide)
            case "height": spec.height = try whole(key, value, in: 1...maxSide)
            case "scale": spec.scale = try number(key, value, in: scaleRange)
            case "fraction": spec.fraction = try number(key, value, in: 0...1)
            case "phase": spec.phase = try number(key, value, in: 0...1)
            case "start-angle": spec.startAngle = try number(key, value, in: -720...720)
            case "end-angle": spec.endAngle = try number(key, value, in: -720...720)
            case "line-width": spec.lineWidth = try number(key, value, in: 0.5...Double(maxSide))
            case "indeterminate": spec.indeterminate = try flag(key, value)
            case "stalled": spec.stalled = try flag(key, value)
            case "label": spec.label = try text(key, value)
            case "direction":
                switch try text(key, value) {
                case "ltr": spec.rightToLeft = false
                case "rtl": spec.rightToLeft = true
                case let other: throw RenderError("direction '\(other)' is not ltr or rtl")
                }
            case "variant":
                switch try text(key, value) {
                case "default": spec.thin = false
                case "bar": spec.thin = true
                case let other: throw RenderError("variant '\(other)' is not default or bar")
                }
            case "progress-color": spec.progressColor = try color(key, try text(key, value))
            case "track-color": spec.trackColor = try color(key, try text(key, value))
            case "colors":
                guard case .strings(let texts) = value.kind, (2...maxColors).contains(texts.count) else {
                    throw RenderError("colors needs 2 to \(maxColors) colors as an array of strings (as), such as ['#2EC27E', '#E01B24']")
                }
                spec.colors = try texts.map { text throws(RenderError) in try color(key, text) }
            case "locations":
                guard case .doubles(let numbers) = value.kind else {
                    throw RenderError("locations needs an array of numbers (ad), got type '\(value.signature)'")
                }
                spec.locations = numbers
            case "fill":
                switch try text(key, value) {
                case "gradient": spec.flatFill = false
                case "flat": spec.flatFill = true
                case let other: throw RenderError("fill '\(other)' is not gradient or flat")
                }
            case "inner-shadow": spec.innerShadow = try flag(key, value)
            case "frames": spec.frames = try whole(key, value, in: 1...maxFrames)
            case "duration": spec.duration = try number(key, value, in: 0.1...10)
            case "from-fraction": spec.fromFraction = try number(key, value, in: 0...1)
            case "easing": spec.easing = try choice(key, value, Easing.self)
            case "bounciness": spec.bounciness = try number(key, value, in: 0...20)
            case "reduce-motion": spec.reduceMotion = try flag(key, value)
            case "track-image", "fill-image":
                guard case .bytes(let bytes) = value.kind else { throw wrongType(key, value, "PNG bytes (ay)") }
                guard bytes.count <= maxSkinBytes else {
                    throw RenderError("\(key) is \(bytes.count) bytes; the limit is \(maxSkinBytes)", name: "InvalidImage")
                }
                if key == "track-image" { spec.trackImage = bytes } else { spec.fillImage = bytes }
            case "track-caps", "fill-caps":
                guard case .doubles(let caps) = value.kind, caps.count == 2, caps.allSatisfy({ $0.isFinite && (0...512).contains($0) }) else {
                    throw RenderError("\(key) needs two numbers (ad), the vertical and horizontal caps, 0 to 512")
                }
                if key == "track-caps" { spec.trackCaps = (caps[0], caps[1]) } else { spec.fillCaps = (caps[0], caps[1]) }
            default:
                throw RenderError("key '\(key)' is not known; accepted: \(keys.joined(separator: ", "))")
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
            throw RenderError("\(spec.width)x\(spec.height) at scale \(spec.scale) is \(Int(pixels)) device pixels; the limit is \(maxDevicePixels)")
        }
        return spec
    }

    private static func text(_ key: String, _ value: OptionValue) throws(RenderError) -> String {
        guard case .string(let text) = value.kind else { throw wrongType(key, value, "a string (s)") }
        return text
    }

    private static func flag(_ key: String, _ value: OptionValue) throws(RenderError) -> Bool {
        guard case .bool(let flag) = value.kind else { throw wrongType(key, value, "a boolean (b)") }
        return flag
    }

    private static func number(_ key: String, _ value: OptionValue, in range: ClosedRange<Double>) throws(RenderError) -> Double {
        guard let number = value.number else { throw wrongType(key, value, "a number (d)") }
        guard number.isFinite, range.contains(number) else {
            throw RenderError("\(key) \(number) is outside \(range.lowerBound)...\(range.upperBound)")
        }
        return number
    }

    private static func whole(_ key: String, _ value: OptionValue, in range: ClosedRange<Int>) throws(RenderError) -> Int {
        let number: Int64
        switch value.kind {
        case .signedInteger(let x): number = x
        case .unsignedInteger(let x): number = Int64(clamping: x)
        default: throw wrongType(key, value, "an unsigned integer (u)")
        }
        guard number >= range.lowerBound, number <= range.upperBound else {
            throw RenderError("\(key) \(number) is outside \(range.lowerBound)...\(range.upperBound)")
        }
        return Int(number)
    }

    private static func choice<Choice: RawRepresentable & CaseIterable>(
        _ key: String, _ value: OptionValue, _ type: Choice.Type
    ) throws(RenderError) -> Choice where Choice.RawValue == String {
        let text = try text(key, value)
        guard let choice = Choice(rawValue: text) else {
            throw RenderError("\(key) '\(text)' is not one of \(Choice.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return choice
    }

    private static func color(_ key: String, _ text: String) throws(RenderError) -> Color {
        guard let color = Color(text) else { throw RenderError("\(key) '\(text)' is not a color such as '#3584E4'") }
        return color
    }

    private static func wrongType(_ key: String, _ value: OptionValue, _ expected: String) -> RenderError {
        RenderError("key '\(key)' expects \(expected), got type '\(value.signature)'")
    }
}
