/// Every way `progressctl run` reads progress, in the order `--parse auto` tries them: the
/// one list from which `--parse`'s names, auto's parsers, the help's list and so the
/// completions (checked against the help) come. A new tool's parser is one row here.
struct ParserEntry: Sendable {
    /// When `--parse auto` tries it.
    enum Auto: Sendable {
        /// For every command.
        case always
        /// Only when the command is one of these programs (their output has no mark of its own).
        case onlyFor(Set<String>)
        /// While no parser of the others has read anything (generic forms any line may hold).
        case fallback
        /// Never: named only (`osc`, `files`, `none` read no lines).
        case never
    }

    let name: String
    let auto: Auto
    /// Programs that print this progress themselves: under auto the files they read (/proc)
    /// are not looked at, so that two sources never take turns.
    let printedBy: Set<String>
    /// Whether these programs print lines the fallbacks would misread as progress (apt's
    /// "Reading package lists... 100%" before any download).
    let misleadsFallbacks: Bool
    /// The parser for the command's arguments; nil for the names that read no lines.
    let parser: (@Sendable (_ arguments: [String]) -> any LineParser)?

    init(
        _ name: String, auto: Auto, printedBy: Set<String> = [], misleadsFallbacks: Bool = false,
        parser: (@Sendable (_ arguments: [String]) -> any LineParser)?
    ) {
        self.name = name
        self.auto = auto
        self.printedBy = printedBy
        self.misleadsFallbacks = misleadsFallbacks
        self.parser = parser
    }
}

enum ParserRegistry {
    static let entries: [ParserEntry] = [
        // OSC 9;4 is read from the terminal stream itself by every choice but a parser's
        // own; `--parse osc` reads it alone.
        ParserEntry("osc", auto: .never, parser: nil),
        ParserEntry("rsync", auto: .always, printedBy: ["rsync"]) { _ in RsyncParser() },
        ParserEntry("curl", auto: .always, printedBy: ["curl"]) { _ in CurlParser() },
        ParserEntry("wget", auto: .always, printedBy: ["wget"]) { _ in WgetParser() },
        ParserEntry("git", auto: .always, printedBy: ["git"]) { _ in GitParser() },
        // dd prints progress only with status=progress: ParserChoice.readsFiles says when.
        ParserEntry("dd", auto: .onlyFor(["dd"])) { DdParser(arguments: $0) },
        ParserEntry("pv", auto: .onlyFor(["pv"]), printedBy: ["pv"]) { _ in PvParser() },
        ParserEntry("apt", auto: .always, printedBy: ["apt", "apt-get"], misleadsFallbacks: true) { _ in AptStatusParser() },
        ParserEntry("ffmpeg", auto: .always, printedBy: ["ffmpeg"]) { FfmpegParser(arguments: $0) },
        ParserEntry("percent", auto: .fallback) { _ in PercentParser() },
        ParserEntry("count", auto: .fallback) { _ in CountParser() },
        // Only the files the command reads (/proc), and nothing at all.
        ParserEntry("files", auto: .never, parser: nil),
        ParserEntry("none", auto: .never, parser: nil),
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
            guard let make = entry.parser else { continue }
            switch entry.auto {
            case .always: parsers.append(make(arguments))
            case .onlyFor(let programs) where programs.contains(program): parsers.append(make(arguments))
            case .fallback where !misled: fallbacks.append(make(arguments))
            default: break
            }
        }
        return (parsers, fallbacks)
    }

    /// The one parser `--parse name` names; none for the names that read no lines.
    static func named(_ name: String, arguments: [String]) -> [any LineParser] {
        entries.first { $0.name == name }?.parser.map { [$0(arguments)] } ?? []
    }
}
