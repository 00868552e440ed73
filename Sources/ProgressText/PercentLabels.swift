import Foundation
import ProgressCore

/// The 101 percent labels of one locale and its 101 whole numbers, formatted once by ICU,
/// so that a label on the update hot path is an array lookup.
final class PercentLabels: @unchecked Sendable {
    private let labels: [String]
    private let numbers: [String]

    init(locale: Locale) {
        let percent = NumberFormatter()
        percent.locale = locale
        percent.numberStyle = .percent
        percent.maximumFractionDigits = 0
        labels = (0...100).map { percent.string(from: NSNumber(value: Double($0) / 100)) ?? "\($0)%" }
        let decimal = NumberFormatter()
        decimal.locale = locale
        decimal.numberStyle = .decimal
        numbers = (0...100).map { decimal.string(from: NSNumber(value: $0)) ?? "\($0)" }
    }

    func label(wholePercent: Int) -> String { labels[min(100, max(0, wholePercent))] }

    /// The number alone, in the locale's digits, for sentences ("42 percent").
    func number(wholePercent: Int) -> String { numbers[min(100, max(0, wholePercent))] }
}
