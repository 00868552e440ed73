/// A catalog's plural rule: the C expression of n after `plural=` in its Plural-Forms header
/// (`n%10==1 && n%100!=11 ? 0 : …`), parsed once and evaluated for each count, with C's
/// operators and precedence: ?:, ||, &&, == !=, < > <= >=, + -, * / %, unary !, parentheses.
/// A division by zero gives 0 rather than a crash.
struct PluralRule: Sendable {
    private indirect enum Node: Sendable {
        case n
        case number(Int)
        case not(Node)
        case binary(String, Node, Node)
        case choice(Node, Node, Node)
    }

    private let root: Node

    /// English's rule, for a catalog without Plural-Forms: the second form for every count but 1.
    static let english = PluralRule(root: .binary("!=", .n, .number(1)))

    private init(root: Node) { self.root = root }

    /// nil when `expression` is not a plural rule.
    init?(_ expression: String) {
        var parser = Parser(Array(expression.utf8))
        guard let root = parser.choice(), parser.atEnd else { return nil }
        self.root = root
    }

    /// The index of the form for `count`.
    func form(for count: Int) -> Int { max(0, Self.evaluate(root, count)) }

    private static func evaluate(_ node: Node, _ n: Int) -> Int {
        switch node {
        case .n: return n
        case .number(let value): return value
        case .not(let operand): return evaluate(operand, n) == 0 ? 1 : 0
        case .choice(let condition, let then, let otherwise):
            return evaluate(condition, n) != 0 ? evaluate(then, n) : evaluate(otherwise, n)
        case .binary(let operation, let left, let right):
            let a = evaluate(left, n)
            // || and && look at their right side only when C would.
            if operation == "||" { return a != 0 || evaluate(right, n) != 0 ? 1 : 0 }
            if operation == "&&" { return a != 0 && evaluate(right, n) != 0 ? 1 : 0 }
            let b = evaluate(right, n)
            switch operation {
            case "==": return a == b ? 1 : 0
            case "!=": return a != b ? 1 : 0
            case "<": return a < b ? 1 : 0
            case ">": return a > b ? 1 : 0
            case "<=": return a <= b ? 1 : 0
            case ">=": return a >= b ? 1 : 0
            case "+": return a &+ b
            case "-": return a &- b
            case "*": return a &* b
            case "/": return b == 0 ? 0 : a / b
            default: return b == 0 ? 0 : a % b
            }
        }
    }

    /// Recursive descent, one function a precedence level, lowest first.
    private struct Parser {
        let bytes: [UInt8]
        var position = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool {
            mutating get {
                skipSpaces()
                return position == bytes.count
            }
        }

        mutating func skipSpaces() {
            while position < bytes.count, bytes[position] == UInt8(ascii: " ") || bytes[position] == UInt8(ascii: "\t")
            {
                position += 1
            }
        }

        /// Takes `token` if it comes next (and is not the start of a longer operator).
        mutating func take(_ token: String) -> Bool {
            skipSpaces()
            let token = Array(token.utf8)
            guard bytes.count - position >= token.count, Array(bytes[position..<position + token.count]) == token else {
                return false
            }
            let next = position + token.count < bytes.count ? bytes[position + token.count] : 0
            if token.count == 1,
                [UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "!"), UInt8(ascii: "=")].contains(token[0]),
                next == UInt8(ascii: "=")
            {
                return false
            }
            position += token.count
            return true
        }

        mutating func choice() -> Node? {
            guard let condition = binary(0) else { return nil }
            guard take("?") else { return condition }
            guard let then = choice(), take(":"), let otherwise = choice() else { return nil }
            return .choice(condition, then, otherwise)
        }

        static let levels: [[String]] = [
            ["||"], ["&&"], ["==", "!="], ["<=", ">=", "<", ">"], ["+", "-"], ["*", "/", "%"],
        ]

        mutating func binary(_ level: Int) -> Node? {
            guard level < Self.levels.count else { return unary() }
            guard var left = binary(level + 1) else { return nil }
            while let operation = Self.levels[level].first(where: { take($0) }) {
                guard let right = binary(level + 1) else { return nil }
                left = .binary(operation, left, right)
            }
            return left
        }

        mutating func unary() -> Node? {
            if take("!") { return unary().map { .not($0) } }
            if take("(") {
                guard let inner = choice(), take(")") else { return nil }
                return inner
            }
            if take("n") { return .n }
            skipSpaces()
            let start = position
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
                position += 1
            }
            guard position > start, let value = Int(String(decoding: bytes[start..<position], as: UTF8.self)) else {
                return nil
            }
            return .number(value)
        }
    }
}
