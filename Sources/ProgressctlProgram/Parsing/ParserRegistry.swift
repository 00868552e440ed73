/// Every way `progressctl run` reads progress, in the order `--parse auto` tries them: the
/// one list from which `--parse`'s names and what each reads, auto's parsers and the help's
/// list come; the shells' completions list the same names (CompletionTests checks them). A
/// new tool's parser is one row here.
struct ParserEntry: Sendable {
    /// When `--parse auto` tries it.
    enum Auto: Sendable {
        /// For every command.
        case always
        /// Only when the command is one of these programs (their output has no mark of its own).
        case onlyFor(Set<String>)
        /// While no parser of the others has read anything (generic forms any line may hold).
        case fallback
        /// Never: by name only (the entries that read no lines).
        case never
    }

    /// What `--parse NAME` reads: that alone (auto and `--progress-regex` read the
    /// terminal's OSC 9;4 sequences besides their lines).
    enum Source: Sendable {
        /// The output's lines, through a parser made for the command's arguments.
        case lines(@Sendable (_ arguments: [String]) -> any LineParser)
        /// The terminal's OSC 9;4 sequences.
        case terminalSequences
        /// The files the command reads (/proc).
        case files
        /// Nothing at all.
        case nothing
    }

    let name: String
    let auto: Auto
    /// Programs that print this progress themselves: under auto the files they read (/proc)
    /// are not looked at, so that two sources never take turns.
    let printedBy: Set<String>
    /// Whether these programs print lines the fallbacks would misread as progress (apt's
    /// "Reading package lists... 100%" before any download).
    let misleadsFallbacks: Bool
    let source: Source

    /// A parser of lines.
    init(
        _ name: String, auto: Auto, printedBy: Set<String> = [], misleadsFallbacks: Bool = false,
        parser: @escaping @Sendable (_ arguments: [String]) -> any LineParser
    ) {
        self.name = name
        self.auto = auto
        self.printedBy = printedBy
        self.misleadsFallbacks = misleadsFallbacks
        source = .lines(parser)
    }

    /// A name that reads no lines: chosen by name only, never by auto.
    init(_ name: String, reads source: Source) {
        self.name = name
        auto = .never
        printedBy = []
        misleadsFallbacks = false
        self.source = source
    }

    /// The parser of lines for the command's arguments; nil for the names that read none.
    func parser(_ arguments: [String]) -> (any LineParser)? {
        guard case .lines(let make) = source else { return nil }
        return make(arguments)
    }

    /// Whether the terminal's OSC 9;4 sequences are read under this name.
    var readsTerminalSequences: Bool {
        guard case .terminalSequences = source else { return false }
        return true
    }

    /// Whether the files the command reads (/proc) are read under this name.
    var readsFiles: Bool {
        guard case .files = source else { return false }
        return true
    }
}

enum ParserRegistry {
    static let entries: [ParserEntry] = [
        // OSC 9;4 is read from the terminal stream itself by every choice but a parser's
        // own; `--parse osc` reads it alone.
        ParserEntry("osc", reads: .terminalSequences),
        ParserEntry("rsync", auto: .always, printedBy: ["rsync"]) { _ in RsyncParser() },
        ParserEntry("curl", auto: .always, printedBy: ["curl"]) { _ in CurlParser() },
        ParserEntry("wget", auto: .always, printedBy: ["wget"]) { _ in WgetParser() },
        ParserEntry("git", auto: .always, printedBy: ["git"]) { _ in GitParser() },
        // dd prints progress only with status=progress: ParserChoice.readsFiles says when.
        ParserEntry("dd", auto: .onlyFor(["dd"])) { DdParser(arguments: $0) },
        ParserEntry("pv", auto: .onlyFor(["pv"]), printedBy: ["pv"]) { _ in PvParser() },
        ParserEntry("apt", auto: .always, printedBy: ["apt", "apt-get"], misleadsFallbacks: true) { _ in
            AptStatusParser()
        },
        ParserEntry("ffmpeg", auto: .always, printedBy: ["ffmpeg"]) { FfmpegParser(arguments: $0) },
        ParserEntry("percent", auto: .fallback) { _ in PercentParser() },
        ParserEntry("count", auto: .fallback) { _ in CountParser() },
        // Only the files the command reads (/proc), and nothing at all.
        ParserEntry("files", reads: .files),
        ParserEntry("none", reads: .nothing),
    ]

    /// What `--parse` takes.
    static let names = ["auto"] + entries.map(\.name)

    /// Programs that print their own progress.
    static let printing = entries.reduce(into: Set<String>()) { $0.formUnion($1.printedBy) }

    /// Auto's parsers for `program` with `arguments`, and the fallbacks tried until one reads.
    static func auto(program: String, arguments: [String]) -> (parsers: [any LineParser], fallbacks: [any LineParser]) {
        var parsers: [any LineParser] = []
        var fallbacks: [any LineParser] = []
        let misled = entries.contains { $0.misleadsFallbacks && $0.printedBy.contains(program) }
        for entry in entries {
            guard let parser = entry.parser(arguments) else { continue }
            switch entry.auto {
            case .always: parsers.append(parser)
            case .onlyFor(let programs) where programs.contains(program): parsers.append(parser)
            case .fallback where !misled: fallbacks.append(parser)
            default: break
            }
        }
        return (parsers, fallbacks)
    }

    /// The entry `--parse name` names.
    static func entry(named name: String) -> ParserEntry? {
        entries.first { $0.name == name }
    }
}
