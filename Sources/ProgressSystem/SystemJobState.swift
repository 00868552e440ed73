import ProgressModel

/// What a system service has said about one job, in the task's terms. Each input fills it
/// from its service's properties and hands it to `SystemJobs`, which sends all of it as one
/// Update: the store keeps what did not change, so an unchanged job emits nothing.
struct SystemJobState: Equatable {
    enum Outcome: Equatable {
        case finished, cancelled
        case failed(String)
    }

    var title = ""
    var message = ""
    /// 0...1, or nil while the service does not know (the task is indeterminate).
    var fraction: Double?
    /// Bytes the job processes in all, when the service says (UDisks2's `Bytes`).
    var totalBytes: UInt64 = 0
    /// The front end that asked for the job, where known.
    var appId: String?

    func update(limits: Limits) -> TaskUpdate {
        var update = TaskUpdate()
        update.title = Self.bounded(title, to: limits.maxTitleBytes)
        update.message = Self.bounded(message, to: limits.maxMessageBytes)
        if let appId { update.appId = Self.bounded(appId, to: limits.maxAppIdBytes) }
        if let fraction, fraction.isFinite {
            let clamped = min(1, max(0, fraction))
            update.indeterminate = false
            if totalBytes > 0 {
                update.total = totalBytes
                update.unit = "bytes"
                update.completed = UInt64((Double(totalBytes) * clamped).rounded(.down))
            } else {
                update.fraction = clamped
            }
        } else {
            update.indeterminate = true
        }
        return update
    }

    /// Text from a system service as the store takes it: no control characters, and cut at
    /// a character boundary to the limit (services are trusted to speak, not to be short).
    static func bounded(_ text: String, to maxBytes: Int) -> String {
        ClientText.truncated(ClientText.repaired(text), to: maxBytes)
    }
}
