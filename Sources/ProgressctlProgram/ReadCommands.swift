import FoundationEssentials
import ProgressCommandLine
import ProgressBus
import ProgressClient
import ProgressModel

/// The commands that show tasks, in the caller's locale.
enum ReadCommands {
    static let all = [list, get]

    static let list = Command(
        "list", help: #"""
        Usage: progressctl list [--json]

        Shows every task: name, state, percent and detail.

        Percents and details are in your locale (LC_ALL, LC_NUMERIC, LC_MESSAGES, LANG).

        Options:
          --json   print a JSON array of every task's properties

        Examples:
          progressctl list
          progressctl list --json | jq '.[].Name'
        """#,
        run: { arguments, context in
            _ = try arguments.positionals()
            var ordered: [[String: BusValue]] = []
            try context.everyTask { _, task in ordered.append(task) }
            if arguments.has("json") {
                context.out(try json(ordered.map(jsonObject)) + "\n")
                return 0
            }
            let rows = [["NAME", "STATE", "PERCENT", "DETAIL"]] + ordered.map { task in
                [task["Name"]?.string ?? "", state(of: task), task["Label"]?.string ?? "", task["Detail"]?.string ?? ""]
                    .map(TerminalText.shown)
            }
            context.out(table(rows))
            return 0
        })

    static let get = Command(
        "get", help: #"""
        Usage: progressctl get NAME [--json]

        Shows one task's properties.

        Texts are in your locale.

        Options:
          --json   print a JSON object

        Examples:
          progressctl get backup
          progressctl get backup --json
        """#,
        run: { arguments, context in
            let name = try arguments.positionals("NAME")[0]
            let task = try context.manager("Describe", [.string(name), .string(context.locale)])
                .first?.dictionary ?? [:]
            if arguments.has("json") {
                context.out(try json(jsonObject(task)) + "\n")
                return 0
            }
            let rows = TaskPropertyTable.standard.descriptors.compactMap { property in
                task[property.name].map { [property.name, TerminalText.shown(text($0))] }
            }
            context.out(table(rows, separator: "  "))
            return 0
        })

    /// State as people read it: "running", "paused", "stalled", or the outcome.
    static func state(of task: [String: BusValue]) -> String {
        let state = task["State"]?.string ?? ""
        return state == "running" && task["Stalled"]?.bool == true ? "stalled" : state
    }

    static func text(_ value: BusValue) -> String {
        switch value.unboxed {
        case .string(let text), .objectPath(let text): text
        case .bool(let flag): flag ? "true" : "false"
        case .double(let number): String(number)
        default: value.unboxed.integer.map(String.init) ?? value.unboxed.description
        }
    }

    /// Columns padded to the width cells take on a terminal; the last column is not padded.
    static func table(_ rows: [[String]], separator: String = "   ") -> String {
        guard let columns = rows.map(\.count).max(), columns > 0 else { return "" }
        let widths = (0..<columns).map { column in
            rows.map { column < $0.count ? TerminalText.width($0[column]) : 0 }.max() ?? 0
        }
        return rows.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1
                    ? cell : cell + String(repeating: " ", count: widths[column] - TerminalText.width(cell))
            }.joined(separator: separator).trimmingWhitespace
        }.joined(separator: "\n") + "\n"
    }

    static func jsonObject(_ task: [String: BusValue]) -> [String: JSONValue] {
        task.mapValues { value -> JSONValue in
            switch value.unboxed {
            case .string(let text), .objectPath(let text): .string(text)
            case .bool(let flag): .bool(flag)
            case .double(let number): .number(number)
            case .uint64(let number): .count(number)
            default: value.unboxed.integer.map { .integer($0) } ?? .string(value.unboxed.description)
            }
        }
    }

    static func json<Value: Encodable>(_ value: Value) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// A property's value as `--json` writes it.
    enum JSONValue: Encodable {
        case string(String), bool(Bool), number(Double), count(UInt64), integer(Int64)

        func encode(to encoder: Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .string(let text): try container.encode(text)
            case .bool(let flag): try container.encode(flag)
            case .number(let number): try container.encode(number)
            case .count(let number): try container.encode(number)
            case .integer(let number): try container.encode(number)
            }
        }
    }
}
