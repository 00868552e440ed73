/// Sizes as a file manager writes them, in decimal units ("1.23 GB", "1,23 Go", "998
/// bytes"), by the rules of Foundation's ByteCountFormatStyle(style: .file), which people
/// know from their file managers: the unit is the largest in which the value rounds below
/// 1,000 of it; kilobytes show no fraction, megabytes one digit at most, larger units two;
/// nothing at all is "0 kB". Past ICU's largest unit (petabytes), exabytes.
final class ByteCounts: @unchecked Sendable {
    private static let units = ["byte", "kilobyte", "megabyte", "gigabyte", "terabyte", "petabyte"]
    private static let unitSizes: [UInt64] = [1, 1_000, 1_000_000, 1_000_000_000, 1_000_000_000_000, 1_000_000_000_000_000]
    /// Each unit shows values below its bound: 999,500 bytes would round to "1,000 kB", so
    /// from 999,499 on it is megabytes (which show a fraction digit: 999.95 MB is 1 GB).
    private static let bounds: [UInt64] = [999, 999_499, 999_949_999, 999_994_999_999, 999_994_999_999_999, .max]
    private static let exabyte: UInt64 = 1_000_000_000_000_000_000

    private let locale: String
    private var formats: [Int: ICUNumberFormat] = [:]
    private lazy var exabytes = ICUNumberFormat(locale: locale, skeleton: ".##")

    init(locale: String) { self.locale = locale }

    func string(_ value: UInt64) -> String {
        if value == 0 { return format(1)?.string(0.0) ?? "0 kB" }
        if value >= Self.exabyte {
            let number = exabytes?.string(Double(value) / Double(Self.exabyte)) ?? "\(value / Self.exabyte)"
            return "\(number) EB"
        }
        let unit = Self.bounds.firstIndex { value < $0 } ?? Self.units.count - 1
        let shown = Double(value) / Double(Self.unitSizes[unit])
        return format(unit)?.string(shown) ?? "\(value) B"
    }

    private func format(_ unit: Int) -> ICUNumberFormat? {
        if let format = formats[unit] { return format }
        let precision = unit <= 1 ? "." : unit == 2 ? ".#" : ".##"
        let width = unit == 0 ? " unit-width-full-name" : ""
        let format = ICUNumberFormat(locale: locale, skeleton: "\(precision) measure-unit/digital-\(Self.units[unit])\(width)")
        formats[unit] = format
        return format
    }
}

/// Durations as people say them, in whole units, wide ("45 seconds", "3 minutes", "2 hours,
/// 2 minutes"): the rounding is the caller's; a unit whose value is zero is left out.
final class Durations: @unchecked Sendable {
    private let locale: String
    private lazy var hours = ICUNumberFormat(locale: locale, skeleton: "measure-unit/duration-hour unit-width-full-name precision-integer")
    private lazy var minutes = ICUNumberFormat(locale: locale, skeleton: "measure-unit/duration-minute unit-width-full-name precision-integer")
    private lazy var seconds = ICUNumberFormat(locale: locale, skeleton: "measure-unit/duration-second unit-width-full-name precision-integer")
    private lazy var list = ICUUnitList(locale: locale)

    init(locale: String) { self.locale = locale }

    /// Under a minute in steps of 5 seconds, under an hour in minutes, then hours and minutes.
    func string(seconds total: Int64) -> String {
        if total < 60 {
            let rounded = max(5, (total + 4) / 5 * 5)
            return seconds?.string(Double(rounded)) ?? "\(rounded) s"
        }
        if total < 3_600 {
            let rounded = max(1, (total + 30) / 60)
            return minutes?.string(Double(rounded)) ?? "\(rounded) min"
        }
        let wholeMinutes = (total + 30) / 60
        var parts = [hours?.string(Double(wholeMinutes / 60)) ?? "\(wholeMinutes / 60) h"]
        if wholeMinutes % 60 != 0 { parts.append(minutes?.string(Double(wholeMinutes % 60)) ?? "\(wholeMinutes % 60) min") }
        return parts.count == 1 ? parts[0] : list?.joined(parts) ?? parts.joined(separator: ", ")
    }
}
