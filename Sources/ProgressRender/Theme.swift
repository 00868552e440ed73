import ProgressModel

#if canImport(Glibc)
import Glibc
#endif

/// An sRGB color with alpha, 0 to 1 each.
public struct Color: Equatable, Sendable {
    public var red, green, blue, alpha: Double

    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        (self.red, self.green, self.blue, self.alpha) = (red, green, blue, alpha)
    }

    public init(hex: UInt32, alpha: Double = 1) {
        self.init(
            red: Double(hex >> 16 & 0xFF) / 255, green: Double(hex >> 8 & 0xFF) / 255, blue: Double(hex & 0xFF) / 255,
            alpha: alpha)
    }

    /// "#RRGGBB" or "#RRGGBBAA".
    public init?(_ text: String) {
        guard text.hasPrefix("#"), [7, 9].contains(text.count), let value = UInt32(text.dropFirst(), radix: 16) else {
            return nil
        }
        if text.count == 7 {
            self.init(hex: value)
        } else {
            self.init(hex: value >> 8, alpha: Double(value & 0xFF) / 255)
        }
    }

    /// WCAG 2 relative luminance: what contrast is judged by (not the average of R, G and B).
    public var luminance: Double {
        func linear(_ c: Double) -> Double { c <= 0.03928 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4) }
        return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
    }

    /// The same hue with its HSB brightness multiplied, capped at 1. Pure white and black
    /// are first nudged to 0.99 and 0.01 so that their shades stay visible.
    public func brightness(times factor: Double) -> Color {
        let nudged = Color(
            red: min(max(red, 0.01), 0.99), green: min(max(green, 0.01), 0.99), blue: min(max(blue, 0.01), 0.99),
            alpha: alpha)
        let value = max(nudged.red, nudged.green, nudged.blue)
        let target = min(1, value * factor)
        let ratio = target / value
        return Color(
            red: min(1, nudged.red * ratio), green: min(1, nudged.green * ratio), blue: min(1, nudged.blue * ratio),
            alpha: alpha)
    }

    public func with(alpha: Double) -> Color { Color(red: red, green: green, blue: blue, alpha: alpha) }
}

/// The three themes: colors for the track, each state, and text.
public enum Theme: String, CaseIterable, Sendable {
    case light, dark
    case highContrast = "high-contrast"

    public var track: Color {
        switch self {
        case .light: Color(hex: 0xDEDDDA)
        case .dark: Color(hex: 0x3D3846)
        case .highContrast: Color(hex: 0xFFFFFF)
        }
    }

    /// Each state looks different, and failed never looks like success.
    public func fill(for state: TaskState, stalled: Bool) -> Color {
        if stalled && state == .running { return self == .highContrast ? Color(hex: 0x613583) : Color(hex: 0xC64600) }
        switch (self, state) {
        case (.light, .running): return Color(hex: 0x3584E4)
        case (.dark, .running): return Color(hex: 0x62A0EA)
        case (.highContrast, .running): return Color(hex: 0x000000)
        case (.light, .paused), (.dark, .paused): return Color(hex: 0xE5A50A)
        case (.highContrast, .paused): return Color(hex: 0x5E4300)
        case (.light, .finished): return Color(hex: 0x26A269)
        case (.dark, .finished): return Color(hex: 0x57E389)
        case (.highContrast, .finished): return Color(hex: 0x00441B)
        case (.light, .failed), (.light, .cancelled): return Color(hex: 0xC01C28)
        case (.dark, .failed), (.dark, .cancelled): return Color(hex: 0xF66151)
        case (.highContrast, .failed), (.highContrast, .cancelled): return Color(hex: 0x8B0000)
        }
    }

    /// High contrast: thick outlines, no gradients, no motion.
    public var outlineWidth: Double { self == .highContrast ? 2 : 0 }
    public var allowsGradients: Bool { self != .highContrast }
    public var allowsMotion: Bool { self != .highContrast }
}
