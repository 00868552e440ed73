import FoundationEssentials

// Tools whose work comes in phases or blocks rather than one percent a line.

/// git --progress (stderr, CR-updated): `Receiving objects:  44% (4/9)`, each phase starting
/// again at 0 %. Each phase is given a slice of the whole, in the order git runs them, so
/// that the task's fraction only ever rises across a clone, fetch or push.
public struct GitParser: LineParser {
    public static let name = "git"
    static let line = Pattern(#"^(?:remote: )?([A-Z][a-z]+(?: [a-z]+)*):\s+(\d{1,3})% \((\d+)/(\d+)\)"#)
    /// Where each phase starts and ends in the whole: the transfer takes most of the time.
    static let slices: [String: ClosedRange<Double>] = [
        "Enumerating objects": 0...0.02,
        "Counting objects": 0.02...0.05,
        "Compressing objects": 0.05...0.15,
        "Receiving objects": 0.15...0.85,
        "Unpacking objects": 0.15...0.85,
        "Writing objects": 0.15...0.85,
        "Resolving deltas": 0.85...0.95,
        "Updating files": 0.95...1,
        "Checking out files": 0.95...1,
    ]

    public init() {}

    public mutating func read(_ line: String) -> ProgressReading? {
        guard let groups = Self.line.groups(in: line), let phase = groups[0], let slice = Self.slices[phase],
              let done = Double(loose: groups[2]), let total = Double(loose: groups[3]), total > 0 else { return nil }
        let within = min(done / total, 1)
        return ProgressReading(
            .fraction(slice.lowerBound + within * (slice.upperBound - slice.lowerBound)), phase: Self.name,
            message: phase)
    }
}

/// apt's `-o APT::Status-Fd=N` lines: `dlstatus:1:40.0000:Retrieving file 1 of 1` while it
/// downloads, `pmstatus:pv:60.0000:Configuring pv (amd64)` while dpkg works (a phase of
/// its own, starting again from 0), `pmerror:WHAT:PERCENT:TEXT` when a package fails, WHAT
/// being the package or the .deb dpkg was given (`/var/cache/apt/archives/pv_1.8.0-2_amd64.deb`),
/// which may hold a colon (`libc6:amd64`), as TEXT may (a path dpkg quotes).
/// Without the option, on a terminal: the download's status line (`50% [2 pv 0 B/301 kB 0%]`)
/// and `apt`'s own bar for dpkg's work (`Progress: [ 40%] [####…]`, drawn on the bottom row
/// between ESC 7 and ESC 8, several to a line, as no newline separates them).
public struct AptStatusParser: LineParser {
    public static let name = "apt"
    static let line = Pattern(#"^(dlstatus|pmstatus|pmerror):(.*?):(\d+(?:\.\d+)?):(.*)$"#)
    static let terminalDownload = Pattern(#"^(\d{1,3})% \[.*\]$"#)
    static let terminalBar = Pattern(#"Progress: \[ *(\d{1,3})%\]"#)

    public init() {}

    public mutating func read(_ line: String) -> ProgressReading? {
        if let percent = Self.terminalBar.allGroups(in: line).last?.first.flatMap({ Double(loose: $0) }) {
            return .percent(percent, phase: "pmstatus")
        }
        if let percent = Self.terminalDownload.groups(in: line)?[0].flatMap({ Double(loose: $0) }) {
            return .percent(percent, phase: "dlstatus")
        }
        guard let groups = Self.line.groups(in: line), let kind = groups[0],
              let percent = Double(loose: groups[2]) else { return nil }
        let text = groups[3].map { $0.trimmingWhitespace }
        if kind == "pmerror" {
            // dpkg's text does not always say which package ("trying to overwrite '/usr/bin/x',
            // which is also in package y"): the file's name or the package's leads it.
            let what = groups[1].map { URL(fileURLWithPath: $0).lastPathComponent } ?? ""
            let message = [what, text ?? ""].filter { !$0.isEmpty }.joined(separator: ": ")
            return ProgressReading(.error(nil), phase: "pmstatus", message: message)
        }
        return .percent(percent, phase: kind, message: text)
    }
}

/// ffmpeg: `-progress pipe:1` writes key=value blocks (`out_time_us=2880078` — `out_time_ms`
/// is also microseconds — ending `progress=continue` or `progress=end`); without it, its
/// stats line carries `time=00:00:02.88`. The time is set against the input's duration: `-t`
/// on the command line, or the `Duration:` ffmpeg prints for its input.
public struct FfmpegParser: LineParser {
    public static let name = "ffmpeg"
    static let microseconds = Pattern(#"^out_time_(?:us|ms)=(\d+)$"#)
    static let statsTime = Pattern(#"\btime=\s*(-?\d+:\d\d:\d\d(?:\.\d+)?)\b"#)
    static let inputDuration = Pattern(#"^\s*Duration: (\d+:\d\d:\d\d(?:\.\d+)?),"#)
    static let end = "progress=end"

    public private(set) var duration: Double?

    public init(arguments: [String] = []) {
        // The last -t given: an output's limit, which is what gets encoded.
        for (index, argument) in arguments.enumerated() where argument == "-t" && index + 1 < arguments.count {
            duration = Self.seconds(arguments[index + 1])
        }
    }

    /// ffmpeg's time syntax: `[-][HH:]MM:SS[.m...]` or `[-]S+[.m...][s|ms|us]`.
    static func seconds(_ text: String) -> Double? {
        if text.contains(":") {
            let parts = text.split(separator: ":").compactMap { Double($0) }
            guard parts.count == text.split(separator: ":").count, (2...3).contains(parts.count) else { return nil }
            return parts.reduce(0) { $0 * 60 + $1 }
        }
        for (suffix, factor) in [("ms", 1e-3), ("us", 1e-6), ("s", 1.0)] where text.hasSuffix(suffix) {
            return Double(text.dropLast(suffix.count)).map { $0 * factor }
        }
        return Double(text)
    }

    public mutating func read(_ line: String) -> ProgressReading? {
        if duration == nil, let groups = Self.inputDuration.groups(in: line) {
            duration = groups[0].flatMap(Self.seconds)
            return nil
        }
        if line == Self.end { return ProgressReading(.fraction(1), phase: Self.name) }
        let time: Double?
        if let groups = Self.microseconds.groups(in: line) {
            time = Double(loose: groups[0]).map { $0 / 1e6 }
        } else if line.hasPrefix("frame=") || line.hasPrefix("size="), let groups = Self.statsTime.groups(in: line) {
            time = groups[0].flatMap(Self.seconds)
        } else {
            time = nil
        }
        guard let time, let duration, duration > 0 else { return nil }
        return .ratio(min(max(time, 0), duration), of: duration, phase: Self.name)
    }
}
