/// Sizes as a file manager writes them, in decimal units ("1.23 GB", "1,23 Go", "998
/// bytes"), by the rules of Foundation's ByteCountFormatStyle(style: .file), which people
/// know from their file managers: the unit is the largest in which the value rounds below
/// 1,000 of it; kilobytes show no fraction, megabytes one digit at most, larger units two;
/// nothing at all is "0 kB". Past ICU's largest unit (petabytes), exabytes.
final class ByteCountFormat {
    private static let units = ["byte", "kilobyte", "megabyte", "gigabyte", "terabyte", "petabyte"]
    private static let unitSizes: [UInt64] = [
        1, 1_000, 1_000_000, 1_000_000_000, 1_000_000_000_000, 1_000_000_000_000_000,
    ]
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
        let format = ICUNumberFormat(
            locale: locale, skeleton: "\(precision) measure-unit/digital-\(Self.units[unit])\(width)")
        formats[unit] = format
        return format
    }
}
