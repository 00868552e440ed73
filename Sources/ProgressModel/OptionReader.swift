/// Reads the values of one options dictionary (an a{sv} from a client: Start and Update
/// keys, Subscribe options, render specs), with the same checks and the same errors for
/// all of them: a key given twice, a key the call does not know, a value of the wrong
/// type, a number outside its range, a choice that is not one of the accepted ones.
public struct OptionReader: Sendable {
    /// The call the options are for, as an error message names it ("Start").
    public let call: String
    public let accepted: [String]
    private var seen = Set<String>()

    public init(for call: String, accepting accepted: [String]) {
        self.call = call
        self.accepted = accepted
    }

    /// Checks that `key` is known and not given before; call once for each key, in order.
    public mutating func admit(_ key: String) throws(ProgressError) {
        if !seen.insert(key).inserted { throw .invalidValue("option \(quoted(key)) is given twice") }
        if !accepted.contains(key) {
            throw .unknownOption(
                "option \(quoted(key)) is not known to \(call); accepted: \(accepted.joined(separator: ", "))")
        }
    }

    public func text(_ key: String, _ value: OptionValue, maxBytes: Int = .max) throws(ProgressError) -> String {
        guard case .string(let text) = value.kind else { throw wrongType(key, value, expected: "a string (s)") }
        return try Self.validText(text, key: key, maxBytes: maxBytes)
    }

    /// A string as sent, for values checked elsewhere with errors of their own (a task name).
    public func string(_ key: String, _ value: OptionValue) throws(ProgressError) -> String {
        guard case .string(let text) = value.kind else { throw wrongType(key, value, expected: "a string (s)") }
        return text
    }

    public func flag(_ key: String, _ value: OptionValue) throws(ProgressError) -> Bool {
        guard case .bool(let flag) = value.kind else { throw wrongType(key, value, expected: "a boolean (b)") }
        return flag
    }

    /// Doubles accept integers too: `gdbus call` writes `<1>` as an int32.
    public func number(_ key: String, _ value: OptionValue) throws(ProgressError) -> Double {
        guard let number = value.number else { throw wrongType(key, value, expected: "a number (d)") }
        return number
    }

    /// A finite number in `range`.
    public func number(
        _ key: String, _ value: OptionValue, in range: ClosedRange<Double>
    ) throws(ProgressError) -> Double {
        let number = try number(key, value)
        guard number.isFinite, range.contains(number) else {
            throw .invalidValue("\(key) \(number) is outside \(range.lowerBound)...\(range.upperBound)")
        }
        return number
    }

    /// Counts accept every integer type, for the same reason, but never a negative one.
    public func count(_ key: String, _ value: OptionValue) throws(ProgressError) -> UInt64 {
        switch value.kind {
        case .unsignedInteger(let number): return number
        case .signedInteger(let number) where number >= 0: return UInt64(number)
        case .signedInteger(let number): throw .invalidValue("\(key) \(number) is negative")
        default: throw wrongType(key, value, expected: "an unsigned integer (t)")
        }
    }

    /// A whole number in `range`.
    public func whole<Number: FixedWidthInteger>(
        _ key: String, _ value: OptionValue, in range: ClosedRange<Number>
    ) throws(ProgressError) -> Number {
        let number: Int64 = switch value.kind {
        case .signedInteger(let number): number
        case .unsignedInteger(let number): Int64(clamping: number)
        default: throw wrongType(key, value, expected: "an unsigned integer (u)")
        }
        guard number >= Int64(range.lowerBound), number <= Int64(clamping: range.upperBound) else {
            throw .invalidValue("\(key) \(number) is outside \(range.lowerBound)...\(range.upperBound)")
        }
        return Number(number)
    }

    public func choice<Choice: RawRepresentable & CaseIterable>(
        _ key: String, _ value: OptionValue, _ type: Choice.Type
    ) throws(ProgressError) -> Choice where Choice.RawValue == String {
        let text = try text(key, value, maxBytes: 64)
        guard let choice = Choice(rawValue: text) else {
            throw .invalidValue(
                "\(key) \(quoted(text)) is not one of \(Choice.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return choice
    }

    /// `elements` names what the strings are, for the error ("names").
    public func strings(
        _ key: String, _ value: OptionValue, of elements: String = "strings"
    ) throws(ProgressError) -> [String] {
        guard case .strings(let texts) = value.kind else {
            throw wrongType(key, value, expected: "an array of \(elements) (as)")
        }
        return texts
    }

    public func doubles(_ key: String, _ value: OptionValue) throws(ProgressError) -> [Double] {
        guard case .doubles(let numbers) = value.kind else {
            throw wrongType(key, value, expected: "an array of numbers (ad)")
        }
        return numbers
    }

    /// Whole numbers each within `range`; an error names the first that is not.
    public func wholeNumbers(
        _ key: String, _ value: OptionValue, in range: ClosedRange<Int>
    ) throws(ProgressError) -> [Int] {
        guard case .wholeNumbers(let numbers) = value.kind else {
            throw wrongType(key, value, expected: "an array of whole numbers (au)")
        }
        for number in numbers where !range.contains(Int(clamping: number)) {
            throw .invalidValue("\(key) \(number) is outside \(range.lowerBound)...\(range.upperBound)")
        }
        return numbers.map { Int($0) }
    }

    public func bytes(_ key: String, _ value: OptionValue) throws(ProgressError) -> [UInt8] {
        guard case .bytes(let bytes) = value.kind else { throw wrongType(key, value, expected: "bytes (ay)") }
        return bytes
    }

    public func wrongType(_ key: String, _ value: OptionValue, expected: String) -> ProgressError {
        if case .tooLarge(let count, let limit) = value.kind {
            let unit = value.signature.count == 1 || value.signature == "ay" ? "bytes" : "elements"
            return .limitExceeded(
                "option \(quoted(key)) has \(count) \(unit); the limit is \(limit) (refused before it was read)")
        }
        return .invalidValue("option \(quoted(key)) expects \(expected), got type '\(value.signature)'")
    }

    /// Checks free text from any call (option values and Fail's message).
    public static func validText(_ text: String, key: String, maxBytes: Int) throws(ProgressError) -> String {
        let bytes = text.utf8.count
        if bytes > maxBytes {
            throw .limitExceeded("\(key) is \(bytes) bytes; the limit is \(maxBytes): \(quoted(text))")
        }
        try ClientText.refuseControls(text, field: key)
        return text
    }
}
