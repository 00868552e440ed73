import ProgressModel

/// The texts of tasks in one locale: Label ("42 %"), Detail ("3 of 10 files, about
/// 3 minutes left") and AccessibleText, the sentence a screen reader speaks ("Backup:
/// 42 percent, about 3 minutes left"). Numbers, byte counts and durations come from ICU;
/// the sentences from the gettext catalogs.
public final class TaskDescriber: TaskDescribing {
    public let locale: LocaleName
    private let catalog: MessageCatalog
    private let language: String?
    private let percents: PercentLabels
    private let counts: ICUNumberFormat?
    private let sizes: ByteCountFormat
    private let durations: DurationFormat

    public init(locale: LocaleName, catalog: MessageCatalog) {
        self.locale = locale
        let icuLocale = locale.formattingIdentifier
        self.catalog = catalog
        language = catalog.language(for: locale)
        percents = PercentLabels(locale: icuLocale)
        counts = ICUNumberFormat(locale: icuLocale, skeleton: "precision-integer")
        sizes = ByteCountFormat(locale: icuLocale)
        durations = DurationFormat(locale: icuLocale)
    }

    public func label(wholePercent: Int) -> String { percents.label(wholePercent: wholePercent) }

    public func detail(of task: ProgressTask) -> String {
        let amount = amountText(of: task)
        let remaining = remainingText(of: task)
        switch (amount, remaining) {
        case let (amount?, remaining?): return text(MessageCatalog.pair).filling(["first": amount, "second": remaining])
        case let (amount?, nil): return amount
        case let (nil, remaining?): return remaining
        case (nil, nil): return ""
        }
    }

    public func accessibleText(of task: ProgressTask) -> String {
        // Each client piece isolated, so that its direction can not reorder the sentence.
        let shownTitle = ClientText.isolated(task.displayTitle)
        let title = ["title": shownTitle]
        switch task.state {
        case .finished: return text(MessageCatalog.finished).filling(title)
        case .cancelled: return text(MessageCatalog.cancelled).filling(title)
        case .failed where task.message.isEmpty: return text(MessageCatalog.failed).filling(title)
        case .failed:
            return text(MessageCatalog.failedBecause)
                .filling(["title": shownTitle, "message": ClientText.isolated(task.message)])
        case .paused: return text(MessageCatalog.paused).filling(title)
        case .running:
            if task.isStalled { return text(MessageCatalog.stalled).filling(title) }
            guard let percent = task.wholePercent else { return text(MessageCatalog.inProgress).filling(title) }
            var values = ["title": shownTitle, "percent": percents.number(wholePercent: percent)]
            if let remaining = remainingText(of: task) {
                values["remaining"] = remaining
                return text(MessageCatalog.percentDoneWithTimeLeft, count: percent).filling(values)
            }
            return text(MessageCatalog.percentDone, count: percent).filling(values)
        }
    }

    /// "12 tasks, 40 percent overall, 5 tasks finished, 1 failed: Backup: disk full": the
    /// parts in a fixed order, failures last, since their list is the open-ended one.
    public func summary(_ summary: AnnouncementSummary) -> String {
        func counted(_ message: MessageCatalog.Message, _ count: Int, _ values: [String: String] = [:]) -> String {
            text(message, count: count).filling(values.merging(["count": number(count)]) { $1 })
        }
        var parts: [String] = []
        if summary.moving > 0 {
            parts.append(counted(
                MessageCatalog.tasksOverall, summary.moving,
                ["percent": percents.number(wholePercent: summary.overallPercent)]))
        }
        if summary.finished > 0 { parts.append(counted(MessageCatalog.tasksFinished, summary.finished)) }
        if summary.cancelled > 0 { parts.append(counted(MessageCatalog.tasksCancelled, summary.cancelled)) }
        if summary.paused > 0 { parts.append(counted(MessageCatalog.tasksPaused, summary.paused)) }
        if summary.stalled > 0 { parts.append(counted(MessageCatalog.tasksStalled, summary.stalled)) }
        if !summary.failed.isEmpty {
            let failures = summary.failed.map { task in
                task.message.isEmpty ? ClientText.isolated(task.displayTitle)
                    : text(MessageCatalog.failure).filling(
                        ["title": ClientText.isolated(task.displayTitle), "message": ClientText.isolated(task.message)])
            }
            parts.append(counted(
                MessageCatalog.tasksFailed, summary.failed.count + summary.failedLater,
                ["failures": joined(failures)]))
        }
        return joined(parts)
    }

    /// "12 tasks failed" over "Backup, Sync, Mail, Photos, Music and 7 more, 3 tasks
    /// finished": the failures named first, since they are what the person must act on.
    public func burst(_ burst: NotificationBurst) -> (title: String, body: String) {
        func named(_ titles: [String], of count: Int) -> String {
            let list = joined(titles.map { ClientText.isolated($0) })
            guard count > titles.count else { return list }
            return text(MessageCatalog.namedAndMore, count: count - titles.count)
                .filling(["titles": list, "count": number(count - titles.count)])
        }
        let finished = text(MessageCatalog.tasksFinished, count: burst.finished)
            .filling(["count": number(burst.finished)])
        guard burst.failed > 0 else { return (finished, named(burst.finishedTitles, of: burst.finished)) }
        let title = text(MessageCatalog.burstFailed, count: burst.failed).filling(["count": number(burst.failed)])
        let failures = named(burst.failedTitles, of: burst.failed)
        return (
            title,
            burst.finished > 0 ? text(MessageCatalog.pair).filling(["first": failures, "second": finished]) : failures)
    }

    public func requestLabel(_ request: TaskRequest) -> String {
        switch request {
        case .cancelRequested: text(MessageCatalog.cancelAction)
        case .pauseRequested: text(MessageCatalog.pauseAction)
        case .resumeRequested: text(MessageCatalog.resumeAction)
        }
    }

    private func joined(_ parts: [String]) -> String {
        guard var result = parts.first else { return "" }
        for part in parts.dropFirst() { result = text(MessageCatalog.pair).filling(["first": result, "second": part]) }
        return result
    }

    private func number(_ count: Int) -> String { counts?.string(UInt64(max(0, count))) ?? "\(count)" }

    // MARK: Pieces

    /// "3 of 10 files", "1.2 GB of 4 GB", "12 frames of 300", "40 items"; nil without counts.
    private func amountText(of task: ProgressTask) -> String? {
        let counted = Int(clamping: task.total > 0 ? task.total : task.completed)
        if task.total > 0 {
            let values = [
                "completed": amount(task.completed, unit: task.unit), "total": amount(task.total, unit: task.unit),
                "unit": ClientText.isolated(task.unit),
            ]
            switch task.unit {
            case "files": return text(MessageCatalog.filesOfTotal, count: counted).filling(values)
            case "items": return text(MessageCatalog.itemsOfTotal, count: counted).filling(values)
            case "bytes", "": return text(MessageCatalog.amountOfTotal).filling(values)
            default: return text(MessageCatalog.amountOfTotalInUnit).filling(values)
            }
        }
        guard task.completed > 0 else { return nil }
        let count = amount(task.completed, unit: task.unit)
        switch task.unit {
        case "files": return text(MessageCatalog.files, count: counted).filling(["count": count])
        case "items": return text(MessageCatalog.items, count: counted).filling(["count": count])
        case "bytes", "": return count
        default: return "\(count) \(ClientText.isolated(task.unit))"
        }
    }

    private func amount(_ value: UInt64, unit: String) -> String {
        if unit == "bytes" { return sizes.string(value) }
        return counts?.string(value) ?? "\(value)"
    }

    /// "about 3 minutes left", rounded as people say it; nil while unknown.
    private func remainingText(of task: ProgressTask) -> String? {
        guard task.state == .running, task.secondsRemaining > 0 else { return nil }
        return text(MessageCatalog.timeLeft).filling(["duration": duration(seconds: task.secondsRemaining)])
    }

    /// Under a minute in steps of 5 seconds, under an hour in minutes, then hours and minutes.
    public func duration(seconds: Int64) -> String { durations.string(seconds: seconds) }

    private func text(_ message: MessageCatalog.Message, count: Int = 1) -> String {
        catalog.text(message, language: language, count: count)
    }
}

/// Describers per locale, made on first use and kept. Held to `capacity` locales so that a
/// client sending many locale strings can not grow the daemon without bound.
public final class DescriberCache {
    public static let capacity = 64
    private let catalog: MessageCatalog
    private var byLocale: [LocaleName: TaskDescriber] = [:]

    public init(catalog: MessageCatalog) {
        self.catalog = catalog
    }

    public func describer(for locale: LocaleName) -> TaskDescriber {
        if let describer = byLocale[locale] { return describer }
        let describer = TaskDescriber(locale: locale, catalog: catalog)
        if byLocale.count >= Self.capacity { byLocale.removeAll(keepingCapacity: true) }
        byLocale[locale] = describer
        return describer
    }

    /// The describer for a client's locale string; InvalidValue for one that is not a locale.
    public func describer(forClientLocale text: String) throws(ProgressError) -> TaskDescriber {
        describer(for: try LocaleName(text))
    }
}
