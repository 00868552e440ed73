import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// `--terminal-progress`: whether progressctl shows a task's progress in the user's
/// terminal with OSC 9;4 (its tab, its taskbar button).
public enum TerminalProgressMode: String, CaseIterable, Sendable {
    case auto, always, never

    /// Whether to write OSC 9;4 to a terminal: `auto` only where the terminal declares it,
    /// detected as the tools that emit it detect it (anstyle-progress's query.rs, systemd),
    /// since there is no query. A terminal that does not declare it may turn OSC 9 into
    /// notifications (kitty before 0.38) or print it.
    public func shows(environment: [String: String], tmuxAllowsPassthrough: () -> Bool) -> Bool {
        switch self {
        case .never: return false
        case .always: return true
        case .auto:
            guard environment["TERM"] != "dumb", Self.declared(environment) else { return false }
            return environment["TMUX"].map { $0.isEmpty } ?? true || tmuxAllowsPassthrough()
        }
    }

    static func declared(_ environment: [String: String]) -> Bool {
        func number(_ key: String) -> Int? {
            environment[key].flatMap { Int($0.split(separator: ".").first ?? "") }
        }
        if !(environment["WT_SESSION"] ?? "").isEmpty || environment["ConEmuANSI"] == "ON" { return true }
        switch environment["TERM_PROGRAM"] {
        case "WezTerm", "ghostty": return true
        case "iTerm.app": return environment["TERM_FEATURES"]?.contains("P") == true
        default: break
        }
        // Ptyxis 48, Konsole 26.04 (KONSOLE_VERSION 260400), VTE 0.80 (GNOME Terminal 3.56).
        return number("PTYXIS_VERSION").map { $0 >= 48 } == true
            || number("KONSOLE_VERSION").map { $0 >= 260_400 } == true
            || number("VTE_VERSION").map { $0 >= 8000 } == true
    }

    /// tmux passes OSC 9;4 on only with `allow-passthrough on` (or `all`), wrapped in DCS.
    /// It is a pane option: the pane's own value, else its window's, else the global one
    /// (`-A`), for the pane progressctl runs in (`TMUX_PANE`; tmux 3.3a's `-g` alone would
    /// miss a `set -w` or `set -p`).
    public static func tmuxAllowsPassthrough(environment: [String: String]) -> Bool {
        let pane = environment["TMUX_PANE"].flatMap { $0.isEmpty ? nil : ["-t", $0] } ?? []
        let query = ["tmux", "show-options", "-Apqv"] + pane + ["allow-passthrough"]
        guard let answer = CommandProcess.output(of: query, environment: environment) else { return false }
        return ["on", "all"].contains(answer.trimmingWhitespace)
    }
}

/// The OSC 9;4 sequences progressctl writes, each ended by ESC \ (as systemd and cargo end
/// theirs: VTE is reported to ignore the BEL form), wrapped for tmux when inside it.
public struct TerminalProgressSequence: Equatable, Sendable {
    public enum Look: Equatable, Sendable {
        case clear, indeterminate, value(Int), paused(Int?), error(Int?)
    }

    public static func text(_ look: Look, insideTmux: Bool) -> String {
        let payload: String
        switch look {
        case .clear: payload = "0;"
        case .indeterminate: payload = "3;"
        case .value(let percent): payload = "1;\(percent)"
        case .paused(let percent): payload = "4;" + (percent.map(String.init) ?? "")
        case .error(let percent): payload = "2;" + (percent.map(String.init) ?? "")
        }
        let sequence = "\u{1B}]9;4;\(payload)\u{1B}\\"
        guard insideTmux else { return sequence }
        return "\u{1B}Ptmux;" + sequence.replacing("\u{1B}", with: "\u{1B}\u{1B}") + "\u{1B}\\"
    }

    /// How a reading looks in the terminal's bar.
    public static func look(of reading: ProgressReading, last: Int?) -> Look {
        func percent(_ fraction: Double?) -> Int? { fraction.map { Int(($0 * 100).rounded(.down)) } }
        switch reading.kind {
        case .fraction(let fraction): return .value(percent(fraction) ?? 0)
        case .indeterminate: return .indeterminate
        case .paused(let fraction): return .paused(percent(fraction) ?? last)
        case .error(let fraction): return .error(percent(fraction) ?? last)
        }
    }
}

/// Writes the current look to a terminal, only when it changes, and again every few seconds
/// (Ghostty drops a bar that is not refreshed for about 15 s); `clear` on every way out.
public final class TerminalProgressWriter {
    let descriptor: Int32
    let insideTmux: Bool
    private var shown: TerminalProgressSequence.Look?
    private var wanted: TerminalProgressSequence.Look = .indeterminate
    private var lastWrite = Date.distantPast
    static let refresh: TimeInterval = 5

    public init(descriptor: Int32, environment: [String: String]) {
        self.descriptor = descriptor
        insideTmux = !(environment["TMUX"] ?? "").isEmpty
    }

    public var lastPercent: Int? {
        if case .value(let percent) = wanted { return percent }
        return nil
    }

    public func want(_ look: TerminalProgressSequence.Look) { wanted = look }

    /// Writes what is wanted if it changed or is due again; the caller knows it is safe to
    /// write (between the command's escape sequences).
    public func writeIfDue() {
        guard wanted != shown || Date().timeIntervalSince(lastWrite) >= Self.refresh else { return }
        write(wanted)
    }

    public func clear() {
        guard shown != nil, shown != .clear else { return }
        write(.clear)
    }

    /// Forget what the terminal shows (after a suspend: it may have been cleared).
    public func forget() { shown = nil }

    private func write(_ look: TerminalProgressSequence.Look) {
        let bytes = Array(TerminalProgressSequence.text(look, insideTmux: insideTmux).utf8)
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes {
                Glibc.write(descriptor, $0.baseAddress! + written, bytes.count - written)
            }
            if result < 0 && errno == EINTR { continue }
            if result <= 0 { return }
            written += result
        }
        shown = look
        lastWrite = Date()
    }
}

/// For a loop that blocks in read(2) (`pipe`): a signal that ends progressctl first clears
/// the terminal's bar, then ends it as it would have. Only write(2) runs in the handler.
enum TerminalProgressSignalClear {
    nonisolated(unsafe) private static var descriptor: Int32 = -1
    nonisolated(unsafe) private static var sequence: UnsafeMutablePointer<CChar>?

    static func install(descriptor: Int32, insideTmux: Bool, signals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]) {
        sequence = strdup(TerminalProgressSequence.text(.clear, insideTmux: insideTmux))
        Self.descriptor = descriptor
        for number in signals {
            signal(number) { caught in
                if let sequence = TerminalProgressSignalClear.sequence {
                    _ = write(TerminalProgressSignalClear.descriptor, sequence, strlen(sequence))
                }
                signal(caught, SIG_DFL)
                raise(caught)
            }
        }
    }
}
