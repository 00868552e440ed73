import FoundationEssentials
import ProgressClient

// What many tools print when no parser of their own knows them: a percent, or "N/M".

/// The last "NN%" (or "NN.N %") of a line, 0–100.
public struct PercentParser: LineParser {
    public static let name = "percent"
    static let percent = Pattern(#"(?<![\d.])(\d{1,3}(?:\.\d+)?) ?%"#)

    public init() {}

    public mutating func read(_ line: String) -> ProgressReading? {
        guard let last = Self.percent.allGroups(in: line).compactMap({ Double(loose: $0[0]) })
                .last(where: { $0 <= 100 }) else {
            return nil
        }
        return .percent(last, phase: Self.name)
    }
}

/// The first "N/M" of a line with N ≤ M (`[3/10]`, `12/40 files`).
public struct CountParser: LineParser {
    public static let name = "count"
    static let count = Pattern(#"(?<![\d/.:-])(\d+) ?/ ?(\d+)(?![\d/.:-])"#)

    public init() {}

    public mutating func read(_ line: String) -> ProgressReading? {
        for groups in Self.count.allGroups(in: line) {
            if let done = groups[0].flatMap({ UInt64($0) }), let total = groups[1].flatMap({ UInt64($0) }),
               let reading = ProgressReading.count(done, of: total, phase: Self.name) {
                return reading
            }
        }
        return nil
    }
}

/// `--progress-regex`: one group reads a percent, two read DONE and TOTAL.
public struct RegexParser: LineParser {
    public static let name = "regex"
    let pattern: Pattern

    public init(_ regex: RegularExpression) {
        pattern = Pattern(regex)
    }

    public mutating func read(_ line: String) -> ProgressReading? {
        guard let groups = pattern.groups(in: line) else { return nil }
        if groups.count == 1, let percent = Double(loose: groups[0]), percent <= 100 {
            return .percent(percent, phase: Self.name)
        }
        if groups.count == 2, let done = groups[0].flatMap({ UInt64($0) }),
           let total = groups[1].flatMap({ UInt64($0) }) {
            return .count(done, of: total, phase: Self.name)
        }
        return nil
    }
}
