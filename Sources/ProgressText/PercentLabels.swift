import ProgressModel

/// The 101 percent labels of one locale and its 101 whole numbers, formatted once by ICU,
/// so that a label on the update hot path is an array lookup.
final class PercentLabels {
    private let labels: [String]
    private let numbers: [String]

    /// `locale` as ICU names it, with its numbering system.
    init(locale: String) {
        let percent = ICUNumberFormat(locale: locale, skeleton: "percent precision-integer")
        labels = (0...100).map { percent?.string(Double($0)) ?? "\($0)%" }
        let decimal = ICUNumberFormat(locale: locale, skeleton: "precision-integer")
        numbers = (0...100).map { decimal?.string(Double($0)) ?? "\($0)" }
    }

    func label(wholePercent: Int) -> String { labels[min(100, max(0, wholePercent))] }

    /// The number alone, in the locale's digits, for sentences ("42 percent").
    func number(wholePercent: Int) -> String { numbers[min(100, max(0, wholePercent))] }
}
