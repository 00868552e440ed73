import FoundationEssentials
import ProgressModel

/// The sentence templates, translated from `po/` (compiled with msgfmt into
/// `<prefix>/share/locale/<language>/LC_MESSAGES/progressd.mo`).
///
/// To answer each caller in its own language, the catalog reads every shipped language's
/// file at start-up (MessageFile) and keeps the answers. A plural message keeps the form for
/// counts 0 to 199; a larger count is asked as 100 plus its last two digits, which selects
/// the same form in every plural rule gettext's catalogs use (they look at n, n % 10 and
/// n % 100).
public final class MessageCatalog: Sendable {
    public static let domain = "progressd"

    /// A message: its English text, which is also its gettext id.
    public struct Message: Hashable, Sendable {
        public let singular: String
        public let plural: String?
        public static func text(_ text: String) -> Message { Message(singular: text, plural: nil) }
        public static func count(_ one: String, _ many: String) -> Message { Message(singular: one, plural: many) }
    }

    public static let inProgress = Message.text("{title}: in progress")
    public static let paused = Message.text("{title} paused")
    public static let finished = Message.text("{title} finished")
    public static let failed = Message.text("{title} failed")
    public static let failedBecause = Message.text("{title} failed: {message}")
    public static let cancelled = Message.text("{title} cancelled")
    public static let stalled = Message.text("{title} stalled")
    public static let timeLeft = Message.text("about {duration} left")
    public static let pair = Message.text("{first}, {second}")
    public static let amountOfTotal = Message.text("{completed} of {total}")
    public static let amountOfTotalInUnit = Message.text("{completed} of {total} {unit}")
    public static let percentDone = Message.count("{title}: {percent} percent", "{title}: {percent} percent")
    public static let percentDoneWithTimeLeft = Message.count(
        "{title}: {percent} percent, {remaining}", "{title}: {percent} percent, {remaining}")
    public static let filesOfTotal = Message.count("{completed} of {total} file", "{completed} of {total} files")
    public static let itemsOfTotal = Message.count("{completed} of {total} item", "{completed} of {total} items")
    public static let files = Message.count("{count} file", "{count} files")
    public static let items = Message.count("{count} item", "{count} items")

    // Summaries of several tasks, when the announcement budget merges what waited.
    public static let tasksOverall = Message.count(
        "{count} task, {percent} percent overall", "{count} tasks, {percent} percent overall")
    public static let tasksFinished = Message.count("{count} task finished", "{count} tasks finished")
    public static let tasksCancelled = Message.count("{count} task cancelled", "{count} tasks cancelled")
    public static let tasksPaused = Message.count("{count} task paused", "{count} tasks paused")
    public static let tasksStalled = Message.count("{count} task stalled", "{count} tasks stalled")
    public static let tasksFailed = Message.count("{count} failed: {failures}", "{count} failed: {failures}")
    public static let failure = Message.text("{title}: {message}")

    // A notification that sums up a burst of outcomes (NotificationBursts).
    public static let burstFailed = Message.count("{count} task failed", "{count} tasks failed")
    public static let namedAndMore = Message.count("{titles} and {count} more", "{titles} and {count} more")

    // The entries of the tray's menu that ask a job to pause, resume or stop.
    public static let pauseAction = Message.text("Pause")
    public static let resumeAction = Message.text("Resume")
    public static let cancelAction = Message.text("Cancel")

    /// Every message the daemon says; each catalog in po/ must translate them all.
    public static let messages: [Message] = [
        inProgress, paused, finished, failed, failedBecause, cancelled, stalled, timeLeft, pair, amountOfTotal,
        amountOfTotalInUnit, percentDone, percentDoneWithTimeLeft, filesOfTotal, itemsOfTotal, files, items,
        tasksOverall, tasksFinished, tasksCancelled, tasksPaused, tasksStalled, tasksFailed, failure, burstFailed,
        namedAndMore, pauseAction, resumeAction, cancelAction,
    ] + systemJobMessages

    static let pluralSamples = 200

    private let singular: [String: [Message: String]]
    private let plural: [String: [Message: [String]]]

    /// The languages with a catalog, such as "de" or "pt_BR".
    public var languages: [String] { singular.keys.sorted() }

    /// English only.
    public init() {
        singular = [:]
        plural = [:]
    }

    /// Reads every catalog under `directory` (`<language>/LC_MESSAGES/progressd.mo`).
    public init(directory: URL) {
        let languages = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
        var singular: [String: [Message: String]] = [:]
        var plural: [String: [Message: [String]]] = [:]
        for language in languages {
            let path = directory.appendingPathComponent("\(language)/LC_MESSAGES/\(Self.domain).mo").path
            guard let data = FileManager.default.contents(atPath: path), let file = MessageFile(bytes: Array(data))
            else { continue }
            var texts: [Message: String] = [:]
            var forms: [Message: [String]] = [:]
            // Without a translation, the English text (and English's plural rule), as gettext.
            for message in Self.messages {
                if let many = message.plural {
                    forms[message] = (0..<Self.pluralSamples).map { count in
                        file.text(message.singular, plural: many, count: count)
                            ?? (count == 1 ? message.singular : many)
                    }
                } else {
                    texts[message] = file.text(message.singular) ?? message.singular
                }
            }
            singular[language] = texts
            plural[language] = forms
        }
        self.singular = singular
        self.plural = plural
    }

    /// The catalog language for a locale: its language and region ("pt_BR"), else its language.
    public func language(for locale: LocaleName) -> String? {
        let parts = locale.identifier.split(separator: "_")
        guard let language = parts.first.map(String.init) else { return nil }
        if let region = parts.last, parts.count > 1, singular["\(language)_\(region)"] != nil {
            return "\(language)_\(region)"
        }
        return singular[language] != nil ? language : nil
    }

    public func text(_ message: Message, language: String?, count: Int = 1) -> String {
        guard let language else { return message.plural.map { count == 1 ? message.singular : $0 } ?? message.singular }
        if message.plural != nil {
            guard let forms = plural[language]?[message] else { return message.singular }
            let sample = count < Self.pluralSamples ? max(0, count) : 100 + count % 100
            return forms[sample]
        }
        return singular[language]?[message] ?? message.singular
    }
}

extension String {
    /// Replaces each `{key}` with its value, in one pass (this runs for every task of a
    /// Snapshot). The braces are ASCII, so the template is scanned as UTF-8 bytes, without
    /// breaking it into Characters.
    func filling(_ values: [String: String]) -> String {
        let bytes = utf8
        var result = ""
        result.reserveCapacity(bytes.count + 32)
        // What is copied as it is starts at `copied`; the search for the next brace at `searched`.
        var copied = bytes.startIndex, searched = bytes.startIndex
        while let open = bytes[searched...].firstIndex(of: UInt8(ascii: "{")) {
            let keyStart = bytes.index(after: open)
            guard let close = bytes[keyStart...].firstIndex(of: UInt8(ascii: "}")) else { break }
            searched = bytes.index(after: close)
            // An unknown key stays as it is, braces and all.
            guard let value = values[String(self[keyStart..<close])] else { continue }
            result += self[copied..<open]
            result += value
            copied = searched
        }
        result += self[copied...]
        return result
    }
}
