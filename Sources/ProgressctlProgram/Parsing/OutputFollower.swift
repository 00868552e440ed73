import FoundationEssentials
import ProgressClient

/// Which parsers read a command's output: `--parse auto` (the default), a name, or the
/// user's `--progress-regex`.
public enum ParserChoice: Sendable, Equatable {
    case auto
    /// A name of ParserRegistry's.
    case named(String)
    /// The user's `--progress-regex`, compiled and checked when chosen.
    case regex(RegularExpression)

    /// The names `--parse` takes (ParserRegistry's).
    public static var names: [String] { ParserRegistry.names }

    public init(parse: String?, regex: String?) throws(ChoiceError) {
        if let regex {
            guard parse == nil || parse == "auto" else {
                throw ChoiceError("--parse and --progress-regex can not be combined")
            }
            let compiled: RegularExpression
            do throws(RegularExpression.SyntaxError) {
                compiled = try RegularExpression(regex)
            } catch {
                throw ChoiceError("--progress-regex '\(regex)' is not a regular expression: \(error.description)")
            }
            guard (1...2).contains(compiled.groupCount) else {
                throw ChoiceError("--progress-regex needs one group (a percent) or two (done and total)")
            }
            self = .regex(compiled)
        } else if let parse, parse != "auto" {
            guard Self.names.contains(parse) else {
                throw ChoiceError("--parse '\(parse)' is not one of \(Self.names.joined(separator: ", "))")
            }
            self = .named(parse)
        } else {
            self = .auto
        }
    }

    public static func == (one: ParserChoice, other: ParserChoice) -> Bool {
        switch (one, other) {
        case (.auto, .auto): true
        case (.named(let name), .named(let otherName)): name == otherName
        case (.regex(let regex), .regex(let otherRegex)): regex.pattern == otherRegex.pattern
        default: false
        }
    }

    /// Whether the files the command reads (/proc) may give progress while its output gives
    /// none: not for the tools that print their own (which may take a second to start), so
    /// that two sources never take turns.
    public func readsFiles(command: [String]) -> Bool {
        if case .named(let name) = self { return ParserRegistry.entry(named: name)?.readsFiles ?? false }
        guard self == .auto else { return false }
        let program = OutputFollower.programName(command)
        if program == "dd" { return !command.contains("status=progress") }
        return !ParserRegistry.printing.contains(program)
    }

    public struct ChoiceError: Error {
        public let message: String
        init(_ message: String) { self.message = message }
    }
}

/// Follows one command's output streams (stdout and stderr through pipes, or one terminal):
/// each stream's bytes go through a TerminalStreamFilter, its text is cut into lines at \r
/// and \n, and each line goes to the parsers; readings that would move the fraction back
/// are dropped. Pure: the caller reads and writes.
public struct OutputFollower: Sendable {
    private var filters: [TerminalStreamFilter]
    private var partialLines: [[UInt8]]
    /// Streams that carried binary data (gzip -c, tar -cf -): random bytes hold "12%" and
    /// "3/9" by chance, so their lines are no longer read.
    private var binary: [Bool]
    private var parsers: [any LineParser]
    /// Parsers tried only while none of `parsers` has matched (auto's generic forms).
    private var fallbacks: [any LineParser]
    private var matched: Int?
    private var fractionGuard = FractionGuard()
    private let readsOSC: Bool
    /// Whether anything in the output has given progress (else /proc may).
    public private(set) var hasReadProgress = false

    /// Lines longer than this are cut: progress lines are short, and memory stays bounded.
    static let longestLine = 4096

    public init(choice: ParserChoice, command: [String], streams: Int, keepsProgressSequences: Bool) {
        filters = Array(repeating: TerminalStreamFilter(keepsProgressSequences: keepsProgressSequences), count: streams)
        partialLines = Array(repeating: [], count: streams)
        binary = Array(repeating: false, count: streams)
        let program = Self.programName(command)
        let arguments = Array(command.drop { URL(fileURLWithPath: $0).lastPathComponent != program }.dropFirst())
        switch choice {
        case .auto:
            (parsers, fallbacks) = ParserRegistry.auto(program: program, arguments: arguments)
            readsOSC = true
        case .regex(let regex):
            parsers = [RegexParser(regex)]
            fallbacks = []
            readsOSC = true
        case .named(let name):
            let entry = ParserRegistry.entry(named: name)
            parsers = entry?.parser(arguments).map { [$0] } ?? []
            fallbacks = []
            readsOSC = entry?.readsTerminalSequences ?? false
        }
    }

    /// The program that does the work: `sudo`, `env`, `nice` and the like are skipped.
    static func programName(_ command: [String]) -> String {
        let wrappers: Set = ["sudo", "env", "nice", "ionice", "nohup", "time", "stdbuf", "chrt", "taskset", "doas"]
        for word in command where !word.hasPrefix("-") && !word.contains("=") {
            let name = URL(fileURLWithPath: word).lastPathComponent
            if !wrappers.contains(name) { return name }
        }
        return command.first.map { URL(fileURLWithPath: $0).lastPathComponent } ?? ""
    }

    public struct Result: Sendable {
        public var shown: [UInt8]
        public var readings: [ProgressReading]
    }

    public mutating func feed(_ bytes: some Sequence<UInt8>, stream: Int) -> Result {
        let filtered = filters[stream].feed(bytes)
        var readings = readsOSC ? filtered.readings.compactMap { fractionGuard.admit($0) } : []
        for byte in filtered.text where !binary[stream] {
            if byte == 0 {
                binary[stream] = true
            } else if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                if String(validatingUTF8: partialLines[stream].map { CChar(bitPattern: $0) } + [0]) == nil {
                    binary[stream] = true
                } else if let reading = read(line: partialLines[stream]) {
                    readings.append(reading)
                }
                partialLines[stream].removeAll(keepingCapacity: true)
            } else if partialLines[stream].count < Self.longestLine {
                partialLines[stream].append(byte)
            }
        }
        if !readings.isEmpty { hasReadProgress = true }
        return Result(shown: filtered.shown, readings: readings)
    }

    /// Bytes a stream's filter held back, to show now that the command has gone quiet or ended.
    public mutating func flush(stream: Int, commandEnded: Bool) -> [UInt8] {
        filters[stream].flush(commandEnded: commandEnded)
    }

    /// Whether progressctl may write an escape sequence of its own into the shown stream.
    public func isBetweenSequences(stream: Int) -> Bool { filters[stream].isBetweenSequences }

    private mutating func read(line bytes: [UInt8]) -> ProgressReading? {
        guard !bytes.isEmpty else { return nil }
        let line = String(decoding: bytes, as: UTF8.self)
        if let matched, let reading = parsers[matched].read(line) { return fractionGuard.admit(reading) }
        if matched == nil {
            for index in parsers.indices {
                if let reading = parsers[index].read(line) {
                    matched = index
                    return fractionGuard.admit(reading)
                }
            }
            for index in fallbacks.indices {
                if let reading = fallbacks[index].read(line) { return fractionGuard.admit(reading) }
            }
        }
        return nil
    }
}
