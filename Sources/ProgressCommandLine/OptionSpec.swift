/// One option a command accepts.
public struct OptionSpec: Sendable {
    public let name: String
    /// The value's placeholder in help ("N", "TEXT"); nil for a flag.
    public let value: String?
    public let help: String
    /// The words the value may be (`Arguments.choice`), when it is one of a few; the
    /// completions offer these.
    public let choices: [String]
    /// May be given more than once (`Arguments.all`); otherwise twice is a mistake.
    public let repeatable: Bool

    public init(_ name: String, value: String? = nil, _ help: String, repeatable: Bool = false) {
        self.init(name, value: value, choices: [], help, repeatable: repeatable)
    }

    /// An option whose value is one of `choices`; help shows them as its placeholder
    /// ("mine|all") unless a `value` is given.
    public init(_ name: String, value: String? = nil, choices: [String], _ help: String, repeatable: Bool = false) {
        self.name = name
        self.value = value ?? (choices.isEmpty ? nil : choices.joined(separator: "|"))
        self.help = help
        self.choices = choices
        self.repeatable = repeatable
    }

    /// Options written as help lists them, one a line: `--name PLACEHOLDER   help`, the
    /// help two or more spaces after; a line that starts with a space goes on with the
    /// help above. A placeholder of words between bars ("mine|all") lists the choices; one
    /// that ends in "..." ("SERVICE...") makes the option repeatable.
    public static func table(_ lines: [Substring]) -> [OptionSpec] {
        var rows: [(left: Substring, help: String)] = []
        for line in lines {
            if line.hasPrefix(" "), !rows.isEmpty {
                rows[rows.count - 1].help += "\n" + line.drop { $0 == " " }
                continue
            }
            let split = line.firstRange(of: "  ")
            precondition(line.hasPrefix("-") && split != nil, "an option line is '--name VALUE  help': '\(line)'")
            rows.append((line[..<split!.lowerBound], String(line[split!.upperBound...].drop { $0 == " " })))
        }
        return rows.map { left, help in
            let words = left.split(separator: " ")
            let name = String(words[0].drop { $0 == "-" })
            guard words.count > 1 else { return OptionSpec(name, help) }
            let value = String(words[1])
            let choices = value.contains("|") ? value.split(separator: "|").map(String.init) : []
            return OptionSpec(name, value: value, choices: choices, help, repeatable: value.hasSuffix("..."))
        }
    }

    /// "-" for a one-letter option, "--" for the others.
    public var dashes: String { name.count == 1 ? "-" : "--" }
}
