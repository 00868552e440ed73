import ProgressModel

/// What one KDE job has told its view so far, from either protocol (JobViewV2's setters or
/// JobViewV3's `update(a{sv})`), and the task values that follow from it. Pure: the bus
/// side feeds it and turns `taskUpdate` into a TaskCommand, so the mapping is unit-tested.
///
/// The mapping (also in the README):
/// - `title` → title (before the first one: the application's name);
/// - `infoMessage` and the two description fields ("Source: …", "Destination: …") → message;
/// - processed/total amounts → completed/total with the unit, preferring bytes, then files,
///   directories, items (the first with a total); `percent` (clamped to 100) when no total is known;
/// - `suspended` → paused/running.
/// Unknown keys, and known keys with another type than KIO sends, are ignored: a newer KIO
/// may send more, and Plasma ignores what it does not know too. `speed`, `destUrl`,
/// `elapsedTime` are accepted and unused (progressd estimates the rate from the amounts).
public struct JobViewState: Sendable, Equatable {
    /// KIO's ERR_USER_CANCELED, which is KJob::KilledJobError (KIO `global.h`).
    public static let userCancelledCode: UInt32 = 1
    /// KJob::UserDefinedError, the code the forwarder terminates a failed task's view with.
    public static let userDefinedErrorCode: UInt32 = 100

    public static let units = ["Bytes": "bytes", "Files": "files", "Directories": "directories", "Items": "items"]
    /// JobViewV2's unit strings (kjobwidgets sends "dirs").
    static let v1Units = [
        "bytes": "bytes", "files": "files", "dirs": "directories", "directories": "directories", "items": "items",
    ]
    static let ignoredKeys: Set<String> = ["speed", "destUrl", "elapsedTime", "terminated", "errorCode", "errorMessage"]

    public var title: String
    public var infoMessage = ""
    /// Description fields by number (0 and 1 in V1, 1 and 2 in V3): label and value.
    public var fields: [UInt32: (label: String, value: String)] = [:]
    public var processed: [String: UInt64] = [:]
    public var totals: [String: UInt64] = [:]
    public var percent: UInt32?
    public var suspended = false
    /// The last `setError` (V1 sends it before `terminate(s)`).
    public var errorCode: UInt32 = 0

    public init(title: String) { self.title = title }

    public static func == (lhs: JobViewState, rhs: JobViewState) -> Bool {
        lhs.title == rhs.title && lhs.infoMessage == rhs.infoMessage && lhs.processed == rhs.processed
            && lhs.totals == rhs.totals && lhs.percent == rhs.percent && lhs.suspended == rhs.suspended
            && lhs.errorCode == rhs.errorCode && lhs.fields.keys.sorted() == rhs.fields.keys.sorted()
            && lhs.fields.allSatisfy {
                rhs.fields[$0.key]?.label == $0.value.label && rhs.fields[$0.key]?.value == $0.value.value
            }
    }

    // MARK: Input

    /// One key of a V3 `update` (or of V2 requestView's hints). Returns whether it was used.
    @discardableResult
    public mutating func apply(_ key: String, _ value: OptionValue) -> Bool {
        switch (key, value.kind) {
        case ("title", .string(let text)): title = text
        case ("infoMessage", .string(let text)): infoMessage = text
        case ("percent", _):
            guard let number = Self.count(value) else { return false }
            percent = UInt32(min(number, 100))
        case ("suspended", .bool(let flag)): suspended = flag
        case (_, .string(let text)) where key.hasPrefix("descriptionLabel") || key.hasPrefix("descriptionValue"):
            guard let number = UInt32(key.dropFirst("descriptionLabel".count)), (1...2).contains(number) else {
                return false
            }
            var field = fields[number] ?? (label: "", value: "")
            if key.hasPrefix("descriptionLabel") { field.label = text } else { field.value = text }
            fields[number] = field
        default:
            for (suffix, unit) in Self.units {
                if key == "processed" + suffix, let number = Self.count(value) { processed[unit] = number; return true }
                if key == "total" + suffix, let number = Self.count(value) { totals[unit] = number; return true }
            }
            return Self.ignoredKeys.contains(key)
        }
        return true
    }

    /// JobViewV2's setTotalAmount/setProcessedAmount; an unknown unit is ignored.
    public mutating func setAmount(_ amount: UInt64, unit: String, total: Bool) {
        guard let unit = Self.v1Units[unit] else { return }
        if total { totals[unit] = amount } else { processed[unit] = amount }
    }

    public mutating func setPercent(_ value: UInt32) { percent = min(value, 100) }

    /// JobViewV2's setDescriptionField / clearDescriptionField (fields 0 and 1).
    public mutating func setField(_ number: UInt32, label: String, value: String) { fields[number] = (label, value) }
    public mutating func clearField(_ number: UInt32) { fields[number] = nil }

    private static func count(_ value: OptionValue) -> UInt64? {
        switch value.kind {
        case .unsignedInteger(let number): number
        case .signedInteger(let number) where number >= 0: UInt64(number)
        default: nil
        }
    }

    // MARK: Output

    /// The unit progress is counted in: the first of bytes, files, directories, items with a total.
    public var countedUnit: String? {
        ["bytes", "files", "directories", "items"].first { (totals[$0] ?? 0) > 0 }
    }

    /// The message: the info message, then the description fields as "Label: value", each
    /// piece's bidi controls closed within it (ClientText.balanced), so that an override in
    /// the info message does not reverse the fields after it.
    public var message: String {
        let described = fields.keys.sorted().compactMap { number -> String? in
            guard let field = fields[number], !field.value.isEmpty else { return nil }
            let value = ClientText.balanced(field.value)
            return field.label.isEmpty ? value : "\(ClientText.balanced(field.label)): \(value)"
        }
        return ([infoMessage].filter { !$0.isEmpty }.map { ClientText.balanced($0) } + described)
            .joined(separator: "; ")
    }

    /// The whole state as an Update (the store ignores what did not change), within `limits`.
    public func taskUpdate(limits: Limits) -> TaskUpdate {
        var update = TaskUpdate()
        // KIO's texts reach the store without a client to refuse: control characters become
        // spaces, as in state from an older daemon (ClientText).
        update.title = ClientText.repaired(Self.truncated(title, to: limits.maxTitleBytes))
        update.message = ClientText.repaired(Self.truncated(message, to: limits.maxMessageBytes))
        if let unit = countedUnit, let total = totals[unit] {
            update.unit = unit
            update.total = total
            // A job may report more than it announced (a file grew); the bar stops at full.
            update.completed = min(processed[unit] ?? 0, total)
        } else if let percent {
            update.fraction = Double(percent) / 100
        }
        update.state = suspended ? .paused : .running
        return update
    }

    /// How a job ended, from terminate's code and message.
    public enum Outcome: Sendable, Equatable {
        case finished
        case cancelled
        case failed(String)
    }

    public static func outcome(code: UInt32, message: String) -> Outcome {
        if code == userCancelledCode { return .cancelled }
        if code == 0 && message.isEmpty { return .finished }
        return .failed(message.isEmpty ? "the job failed (KIO error \(code))" : message)
    }

    /// The longest prefix of `text` of at most `maxBytes` UTF-8 bytes, cut between characters.
    public static func truncated(_ text: String, to maxBytes: Int) -> String {
        ClientText.truncated(text, to: maxBytes)
    }
}
