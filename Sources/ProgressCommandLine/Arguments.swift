/// A usage mistake: the program prints it with its usage and exits 64 (EX_USAGE).
public struct UsageError: Error, Equatable {
    public let message: String
    public init(_ message: String) { self.message = message }
}

/// A command line split into options and positional arguments. Hand-written: no package
/// can be fetched here, and the grammar is small: `--name value`, `--name=value`, flags,
/// and `--` after which everything is positional (for `run -- COMMAND...`).
public struct Arguments: Equatable {
    public var positionals: [String] = []
    public var values: [String: String] = [:]
    public var flags: Set<String> = []
    /// What followed `--`, if it was there.
    public var afterSeparator: [String]?
    /// Every value of a repeatable option, in order (`values` holds the last).
    public var repeated: [String: [String]] = [:]
    /// The words each option with choices may take.
    private var choices: [String: [String]] = [:]

    public init(parsing arguments: [String], options: [OptionSpec], command: String) throws(UsageError) {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                afterSeparator = Array(arguments[index...])
                return
            }
            // One-letter options are written with one dash (-o FILE), the others with two.
            let isShort = argument.count == 2 && argument.hasPrefix("-") && argument != "--"
                && options.contains { $0.name == String(argument.dropFirst()) }
            guard isShort || (argument.hasPrefix("--") && argument.count > 2) else {
                positionals.append(argument)
                continue
            }
            let body = argument.dropFirst(isShort ? 1 : 2)
            let name = String(body.prefix { $0 != "=" })
            let inline = body.contains("=") ? String(body.drop { $0 != "=" }.dropFirst()) : nil
            guard let spec = options.first(where: { $0.name == name }) else {
                throw UsageError("unknown option '\(argument.prefix { $0 != "=" })' for '\(command)'")
            }
            if spec.value == nil {
                if inline != nil { throw UsageError("option '--\(name)' takes no value") }
                flags.insert(name)
                continue
            }
            if values[name] != nil && !spec.repeatable {
                throw UsageError("option '\(spec.dashes)\(name)' is given twice")
            }
            if let inline {
                values[name] = inline
            } else if index < arguments.count {
                values[name] = arguments[index]
                index += 1
            } else {
                throw UsageError("option '\(spec.dashes)\(name)' needs a value (\(spec.value!))")
            }
            if spec.repeatable { repeated[name, default: []].append(values[name]!) }
            if !spec.choices.isEmpty { choices[name] = spec.choices }
        }
    }

    public func has(_ flag: String) -> Bool { flags.contains(flag) }

    /// A whole number option, checked.
    public func count(_ name: String) throws(UsageError) -> UInt64? {
        guard let text = values[name] else { return nil }
        guard let number = UInt64(text) else {
            throw UsageError("option '--\(name)' needs a whole number, not '\(text)'")
        }
        return number
    }

    /// Every value of a repeatable option.
    public func all(_ name: String) -> [String] { repeated[name] ?? [] }

    /// A whole number option within `range`.
    public func wholeNumber(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = values[name] else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError(
                "option '--\(name)' needs a whole number from \(range.lowerBound) to \(range.upperBound), "
                    + "not '\(text)'")
        }
        return number
    }

    /// A number option within `range`; `kind` names what it counts in the message ("seconds").
    public func number(_ name: String, in range: ClosedRange<Double>, kind: String) throws(UsageError) -> Double? {
        guard let text = values[name] else { return nil }
        guard let number = Double(text), range.contains(number) else {
            throw UsageError(
                "option '--\(name)' needs \(kind) from \(range.lowerBound.formatted) to \(range.upperBound.formatted), "
                    + "not '\(text)'")
        }
        return number
    }

    /// A number option, any finite number (the service checks its range).
    public func number(_ name: String) throws(UsageError) -> Double? {
        guard let text = values[name] else { return nil }
        guard let number = Double(text), number.isFinite else {
            throw UsageError("option '--\(name)' needs a number, not '\(text)'")
        }
        return number
    }

    /// The value of an option with choices, checked against them.
    public func choice(_ name: String) throws(UsageError) -> String? {
        guard let text = values[name] else { return nil }
        try check(name, text)
        return text
    }

    /// An option whose value names a case of `kind` ("outcomes" for `.outcomes`), checked.
    public func value<Kind: RawRepresentable & CaseIterable>(
        _ name: String, as kind: Kind.Type
    ) throws(UsageError) -> Kind? where Kind.RawValue == String {
        try values[name].map { text throws(UsageError) in try Self.read(text, as: kind, for: name) }
    }

    /// Every value of a repeatable option, each naming a case of `kind`, checked.
    public func all<Kind: RawRepresentable & CaseIterable>(
        _ name: String, as kind: Kind.Type
    ) throws(UsageError) -> [Kind] where Kind.RawValue == String {
        var read: [Kind] = []
        for text in all(name) { read.append(try Self.read(text, as: kind, for: name)) }
        return read
    }

    private static func read<Kind: RawRepresentable & CaseIterable>(
        _ text: String, as kind: Kind.Type, for name: String
    ) throws(UsageError) -> Kind where Kind.RawValue == String {
        guard let value = Kind(rawValue: text) else {
            throw UsageError("option '--\(name)' needs \(Kind.allCases.map(\.rawValue).spoken), not '\(text)'")
        }
        return value
    }

    private func check(_ name: String, _ text: String) throws(UsageError) {
        let words = choices[name] ?? []
        guard words.contains(text) else { throw UsageError("option '--\(name)' needs \(words.spoken), not '\(text)'") }
    }

    /// A path option, which can not be empty.
    public func path(_ name: String, of kind: String) throws(UsageError) -> String? {
        guard let text = values[name] else { return nil }
        guard !text.isEmpty else { throw UsageError("option '--\(name)' needs a \(kind)") }
        return text
    }

    /// A size option written WIDTHxHEIGHT, such as 300x24.
    public func size(_ name: String) throws(UsageError) -> (width: UInt32, height: UInt32)? {
        guard let text = values[name] else { return nil }
        let parts = text.split(separator: "x").compactMap { UInt32($0) }
        guard parts.count == 2 else {
            throw UsageError("option '--\(name)' needs WIDTHxHEIGHT, such as 300x24, not '\(text)'")
        }
        return (parts[0], parts[1])
    }

    /// Exactly `names.count` positional arguments, named for the error message.
    public func positionals(_ names: String...) throws(UsageError) -> [String] {
        if positionals.count < names.count {
            throw UsageError("missing \(names[positionals.count])")
        }
        if positionals.count > names.count {
            throw UsageError("unexpected argument '\(positionals[names.count])'")
        }
        return positionals
    }
}

extension [String] {
    /// "none, outcomes or progress".
    public var spoken: String {
        count < 2 ? joined() : dropLast().joined(separator: ", ") + " or " + last!
    }
}

private extension Double {
    /// 0.1 as "0.1", 86400 as "86400".
    var formatted: String { self == rounded() ? String(Int(self)) : String(self) }
}
