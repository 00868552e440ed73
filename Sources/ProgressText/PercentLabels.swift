import Foundation
import ProgressCore

/// The 101 percent labels of one locale, formatted once by ICU, so that a label on the
/// update hot path is an array lookup.
public final class PercentLabels: PercentLabeling, @unchecked Sendable {
    public let locale: LocaleName
    private let labels: [String]

    public init(locale: LocaleName) {
        self.locale = locale
        let formatter = NumberFormatter()
        formatter.locale = Locale(identifier: locale.identifier)
        formatter.numberStyle = .percent
        formatter.maximumFractionDigits = 0
        labels = (0...100).map { formatter.string(from: NSNumber(value: Double($0) / 100)) ?? "\($0)%" }
    }

    public func label(wholePercent: Int) -> String {
        labels[min(100, max(0, wholePercent))]
    }
}

/// Labels per locale, made on first use and kept. Held to `capacity` locales so that a
/// client sending many locale strings can not grow the daemon without bound.
public final class PercentLabelCache {
    public static let capacity = 64
    private var byLocale: [LocaleName: PercentLabels] = [:]

    public init() {}

    public func labels(for locale: LocaleName) -> PercentLabels {
        if let labels = byLocale[locale] { return labels }
        let labels = PercentLabels(locale: locale)
        if byLocale.count >= Self.capacity { byLocale.removeAll(keepingCapacity: true) }
        byLocale[locale] = labels
        return labels
    }

    /// Labels for a client's locale string.
    public func labels(forClientLocale text: String) throws(ProgressError) -> PercentLabels {
        labels(for: try LocaleName(text))
    }
}
