/// Durations as people say them, in whole units, wide ("45 seconds", "3 minutes", "2 hours,
/// 2 minutes"): the rounding is the caller's; a unit whose value is zero is left out.
final class DurationFormat {
    private let locale: String
    private lazy var hours = ICUNumberFormat(
        locale: locale, skeleton: "measure-unit/duration-hour unit-width-full-name precision-integer")
    private lazy var minutes = ICUNumberFormat(
        locale: locale, skeleton: "measure-unit/duration-minute unit-width-full-name precision-integer")
    private lazy var seconds = ICUNumberFormat(
        locale: locale, skeleton: "measure-unit/duration-second unit-width-full-name precision-integer")
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
        if wholeMinutes % 60 != 0 {
            parts.append(minutes?.string(Double(wholeMinutes % 60)) ?? "\(wholeMinutes % 60) min")
        }
        return parts.count == 1 ? parts[0] : list?.joined(parts) ?? parts.joined(separator: ", ")
    }
}
