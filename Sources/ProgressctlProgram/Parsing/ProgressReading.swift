import FoundationEssentials
import ProgressClient

/// What one line (or one OSC 9;4 sequence) of a command's output says about its progress.
public struct ProgressReading: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        /// 0...1 of the current phase.
        case fraction(Double)
        /// Working, amount unknown (OSC 9;4 state 3, or state 0: the bar was removed).
        case indeterminate
        /// OSC 9;4 state 4: the terminal shows the bar as paused; the value may stay.
        case paused(Double?)
        /// OSC 9;4 state 2, or apt's pmerror: the terminal shows an error mark.
        case error(Double?)
    }

    public var kind: Kind
    /// The fraction never moves backwards within one phase; a new phase may start lower
    /// (apt downloads, then installs; tar moves on to its next file).
    public var phase: String
    public var message: String?
    /// DONE and TOTAL when the output counts items ("3/10"): the task then shows "3 of 10".
    public var counted: (done: UInt64, total: UInt64)? {
        get { countedTotal.map { (countedDone, $0) } }
        set {
            countedDone = newValue?.done ?? 0
            countedTotal = newValue?.total
        }
    }
    private var countedDone: UInt64 = 0
    private var countedTotal: UInt64?

    public init(_ kind: Kind, phase: String, message: String? = nil) {
        self.kind = kind
        self.phase = phase
        self.message = message
    }

    /// A count of whole items, DONE of TOTAL.
    public static func count(_ done: UInt64, of total: UInt64, phase: String) -> ProgressReading? {
        guard var reading = ratio(Double(done), of: Double(total), phase: phase), done <= total else { return nil }
        reading.counted = (done, total)
        return reading
    }

    public static func percent(_ percent: Double, phase: String, message: String? = nil) -> ProgressReading? {
        guard percent.isFinite, percent >= 0 else { return nil }
        return ProgressReading(.fraction(min(percent, 100) / 100), phase: phase, message: message)
    }

    public static func ratio(
        _ done: Double, of total: Double, phase: String, message: String? = nil
    ) -> ProgressReading? {
        guard done.isFinite, total.isFinite, total > 0, done >= 0, done <= total * 1.000_001 else { return nil }
        return ProgressReading(.fraction(min(done / total, 1)), phase: phase, message: message)
    }

    public var fraction: Double? {
        if case .fraction(let value) = kind { return value }
        return nil
    }
}

/// Reads progress from one line of output at a time (the line without its \r or \n and
/// without terminal escape sequences). Parsers are small value types with no I/O.
public protocol LineParser: Sendable {
    /// The name `--parse NAME` knows it by.
    static var name: String { get }
    mutating func read(_ line: String) -> ProgressReading?
}

/// Keeps the fraction from moving backwards within a phase (rsync's incremental file list,
/// a tool that redraws an older line): a lower value in the same phase is dropped.
public struct FractionGuard: Sendable {
    private var phase: String?
    private var highest = -1.0

    public init() {}

    /// The reading to report, or nil when it would move the fraction back.
    public mutating func admit(_ reading: ProgressReading) -> ProgressReading? {
        if reading.phase != phase {
            phase = reading.phase
            highest = -1
        }
        guard let fraction = reading.fraction else { return reading }
        guard fraction > highest else { return nil }
        highest = fraction
        return reading
    }
}

/// A compiled regular expression and the text of its groups, for the parsers' tables.
struct Pattern: Sendable {
    let regex: RegularExpression

    init(_ pattern: String) {
        // The patterns are constants of this module: a bad one is a programming error.
        regex = try! RegularExpression(pattern)
    }

    init(_ regex: RegularExpression) { self.regex = regex }

    /// The groups of the first match (nil for a group that did not take part), or nil.
    func groups(in line: String) -> [String?]? { regex.firstMatch(in: line) }

    /// The groups of every match, in order.
    func allGroups(in line: String) -> [[String?]] { regex.allMatches(in: line) }
}

extension Double {
    /// "1,234" and "1.5" as numbers (rsync groups thousands with commas in the C locale).
    init?(loose text: String?) {
        guard let text else { return nil }
        self.init(text.filter { $0 != "," })
    }
}
