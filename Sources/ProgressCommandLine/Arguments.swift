/// A usage mistake: progressctl prints it with the command's usage and exits 64 (EX_USAGE).
public struct UsageError: Error, Equatable {
    public let message: String
    public init(_ message: String) { self.message = message }
}

/// One option a command accepts.
public struct OptionSpec: Sendable {
    public let name: String
    /// The value's placeholder in help ("N", "TEXT"); nil for a flag.
    public let value: String?
    public let help: String

    public init(_ name: String, value: String? = nil, _ help: String) {
        self.name = name
        self.value = value
        self.help = help
    }

    /// "-" for a one-letter option, "--" for the others.
    public var dashes: String { name.count == 1 ? "-" : "--" }
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
            if values[name] != nil { throw UsageError("option '\(spec.dashes)\(name)' is given twice") }
            if let inline {
                values[name] = inline
            } else if index < arguments.count {
                values[name] = arguments[index]
                index += 1
            } else {
                throw UsageError("option '\(spec.dashes)\(name)' needs a value (\(spec.value!))")
            }
        }
    }

    public func has(_ flag: String) -> Bool { flags.contains(flag) }

    /// A whole number option, checked.
    public func count(_ name: String) throws(UsageError) -> UInt64? {
        guard let text = values[name] else { return nil }
        guard let number = UInt64(text) else { throw UsageError("option '--\(name)' needs a whole number, not '\(text)'") }
        return number
    }

    /// A size option written WIDTHxHEIGHT, such as 300x24.
    public func size(_ name: String) throws(UsageError) -> (width: UInt32, height: UInt32)? {
        guard let text = values[name] else { return nil }
        let parts = text.split(separator: "x").compactMap { UInt32($0) }
        guard parts.count == 2 else { throw UsageError("--\(name) needs WIDTHxHEIGHT, such as 300x24, not '\(text)'") }
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
