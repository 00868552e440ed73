import FoundationEssentials
import ProgressBus
import ProgressClient

/// Turns readings of a command's output into the task's Update calls (at most ten a second:
/// the daemon would coalesce more anyway) and into the look of the terminal's own bar.
final class ProgressReporter {
    let name: String
    let context: Context
    let terminal: TerminalProgressWriter?
    private var pending: [String: BusValue] = [:]
    private var lastReport = Date.distantPast
    private var lastPulse = Date()
    private var message = ""
    private(set) var indeterminate = true
    /// What the command said when it reported an error of its own (apt's pmerror: dpkg's
    /// reason), for the task's failure: the first, as later ones mostly follow from it.
    /// Cut to 500 characters, so that with the exit status it stays within a message's limit.
    private(set) var reportedError: String?

    init(name: String, context: Context, terminal: TerminalProgressWriter?) {
        self.name = name
        self.context = context
        self.terminal = terminal
        terminal?.want(.indeterminate)
    }

    func apply(_ reading: ProgressReading) {
        terminal?.want(TerminalProgressSequence.look(of: reading, last: terminal?.lastPercent))
        switch reading.kind {
        case .fraction(let fraction):
            if let (done, total) = reading.counted {
                pending["fraction"] = nil
                pending["total"] = .uint64(total)
                pending["completed"] = .uint64(done)
            } else {
                pending["total"] = nil
                pending["completed"] = nil
                pending["fraction"] = .double(fraction)
            }
            pending["indeterminate"] = nil
            indeterminate = false
        case .indeterminate:
            pending["fraction"] = nil
            pending["indeterminate"] = .bool(true)
            indeterminate = true
        case .paused(let fraction), .error(let fraction):
            if case .error = reading.kind, reportedError == nil, let said = reading.message, !said.isEmpty {
                reportedError = String(said.prefix(500))
            }
            if let fraction {
                pending["fraction"] = .double(fraction)
                indeterminate = false
            }
        }
        let said = reading.message ?? ""
        if said != message {
            message = said
            pending["message"] = .string(said)
        }
    }

    /// Sends what is pending if a tenth of a second has passed (or `force`), and pulses an
    /// indeterminate task once a second, as `run` always has.
    func flush(force: Bool = false) {
        let now = Date()
        if !pending.isEmpty, force || now.timeIntervalSince(lastReport) >= 0.1 {
            let report = pending.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
            pending = [:]
            lastReport = now
            _ = try? context.manager("Update", [.string(name), .vardict(report)])
        }
        if indeterminate && now.timeIntervalSince(lastPulse) >= 1 {
            _ = try? context.manager("Pulse", [.string(name)])
            lastPulse = now
        }
    }
}
