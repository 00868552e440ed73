import Foundation
import ProgressBus
import ProgressClient
import XCTest

/// Random and hostile calls to the Progress1 manager for the fuzz tests: empty, 10 KB and
/// control-character names, wrong types, unknown keys, NaN, infinities, huge numbers and
/// 1 MB strings, invalid path escapes, wrong signatures and unknown methods. The sequence
/// is a function of the seed: FUZZ_SEED replays it (the seed of a run is printed, and
/// each failure names it), FUZZ_CALLS sets its length.
public struct HostileCalls {
    public let seed: UInt64
    public let calls: Int
    private var random: SeededRandom
    /// What a failure message says to replay the run.
    public var replay: String { "replay with FUZZ_SEED=\(seed) FUZZ_CALLS=\(calls)" }

    /// The seed and length from FUZZ_SEED and FUZZ_CALLS, or a seed from the clock and `calls`.
    public init(calls: Int) {
        let environment = ProcessInfo.processInfo.environment
        seed = UInt64(environment["FUZZ_SEED"] ?? "") ?? UInt64(Date().timeIntervalSince1970)
        self.calls = Int(environment["FUZZ_CALLS"] ?? "") ?? calls
        random = SeededRandom(state: seed)
        print("fuzz: seed \(seed), \(self.calls) calls a round (\(replay))")
    }

    /// Errors a hostile call may get: the daemon's own, and GDBus's for calls that do not fit the interface.
    public static let allowedErrors: Set<String> = Set(
        ["InvalidName", "InvalidValue", "NoSuchTask", "UnknownOption", "LimitExceeded", "NotAllowed"]
            .map { BusNames.errorPrefix + $0 }
    ).union([
        "org.freedesktop.DBus.Error.InvalidArgs", "org.freedesktop.DBus.Error.UnknownMethod",
        "org.freedesktop.DBus.Error.UnknownObject", "org.freedesktop.DBus.Error.UnknownInterface",
        "org.freedesktop.DBus.Error.UnknownProperty",
    ])

    /// Sends the next call on `connection`; returns "success" or the error's last name,
    /// checking that it is a named one with a short message.
    public mutating func attemptNext(
        on connection: BusConnection, file: StaticString = #filePath, line: UInt = #line
    ) -> String {
        let (path, interface, method, arguments) = next()
        let error: BusCallError
        do {
            try connection.call(BusNames.busName, path, interface, method, arguments, timeoutMilliseconds: 10_000)
            return "success"
        } catch let caught {
            error = caught
        }
        XCTAssertTrue(
            Self.allowedErrors.contains(error.name), "\(method)\(arguments.map(\.signature)): \(error); \(replay)",
            file: file, line: line)
        XCTAssertFalse(error.message.isEmpty, "\(method): an empty message; \(replay)", file: file, line: line)
        XCTAssertLessThan(
            error.message.utf8.count, 1_000, "messages quote values short; \(replay)", file: file, line: line)
        return error.name.components(separatedBy: ".").last!
    }

    /// One call: the object path, interface, method and arguments.
    public mutating func next() -> (String, String, String, [BusValue]) {
        Self.call(&random)
    }

    private static func call(_ random: inout SeededRandom) -> (String, String, String, [BusValue]) {
        let manager = BusNames.managerPath
        let interface = BusNames.managerInterface
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<20: return (manager, interface, "Start", [.string(name(&random)), vardict(&random)])
        case 20..<35: return (manager, interface, "Update", [.string(name(&random)), vardict(&random)])
        case 35..<50: return (manager, interface, "SetFraction", [.string(name(&random)), .double(number(&random))])
        case 50..<55: return (manager, interface, "Pulse", [.string(name(&random))])
        case 55..<60: return (manager, interface, "Finish", [.string(name(&random))])
        case 60..<65: return (manager, interface, "Fail", [.string(name(&random)), .string(text(&random))])
        case 65..<70: return (manager, interface, "Remove", [.string(name(&random))])
        case 70..<74:
            return (manager, interface,
                    ["RequestCancel", "RequestPause", "RequestResume"].randomElement(using: &random)!,
                    [.string(name(&random))])
        case 74..<78: return (manager, interface, "Describe", [.string(name(&random)), .string(locale(&random))])
        case 78..<80: return (manager, interface, "Snapshot", [.string(locale(&random))])
        case 80..<84:
            let entries = (0..<Int.random(in: 0..<6, using: &random)).map { _ in
                BusValue.tuple([.string(name(&random)), vardict(&random)])
            }
            return (manager, interface, "UpdateMany", [.array(elementType: "(sa{sv})", entries)])
        case 84..<88: return (manager, interface, "Subscribe", [vardict(&random)])
        case 88..<92:
            // Object paths under tasks/, valid or not as escapes.
            let element = ["x", "_zz", "_4", "_C3_A9", "_41", "t1", "_c3", "a_20b"].randomElement(using: &random)!
            return (BusNames.tasksPath + "/" + element, BusNames.propertiesInterface, "GetAll",
                    [.string(BusNames.taskInterface)])
        case 92..<96:
            // The right method with the wrong arguments.
            return (manager, interface, ["Start", "SetFraction", "Update"].randomElement(using: &random)!,
                    [value(&random)])
        default: return (manager, interface, "Frobnicate", [])
        }
    }

    private static func name(_ random: inout SeededRandom) -> String {
        switch Int.random(in: 0..<10, using: &random) {
        case 0: return ""
        case 1: return String(repeating: "n", count: 10_000)
        case 2: return "tab\there\u{7}"
        case 3: return "é✓日本"
        default: return "t\(Int.random(in: 0..<30, using: &random))"
        }
    }

    private static func text(_ random: inout SeededRandom) -> String {
        switch Int.random(in: 0..<8, using: &random) {
        case 0: return String(repeating: "m", count: 1_000_000)
        case 1: return ""
        case 2: return "\u{0}\u{1}control"
        default: return "message \(Int.random(in: 0..<100, using: &random))"
        }
    }

    private static func number(_ random: inout SeededRandom) -> Double {
        [.nan, .infinity, -.infinity, -1, 0, 0.5, 1, 1.0000001, 1e308, -0.0].randomElement(using: &random)!
    }

    private static func locale(_ random: inout SeededRandom) -> String {
        ["", "fr_FR.UTF-8", "xx", "de-DE", "sr_RS@latin", "C", String(repeating: "z", count: 5_000), "ar"]
            .randomElement(using: &random)!
    }

    private static func value(_ random: inout SeededRandom) -> BusValue {
        switch Int.random(in: 0..<10, using: &random) {
        case 0: return .string(text(&random))
        case 1: return .double(number(&random))
        case 2: return .int32(Int32.random(in: .min ... .max, using: &random))
        case 3: return .uint64(UInt64.random(in: 0 ... .max, using: &random))
        case 4: return .int64(-Int64.random(in: 0 ... .max, using: &random))
        case 5: return .bool(Bool.random(using: &random))
        case 6: return .array(elementType: "s", [.string(name(&random)), .string(name(&random))])
        case 7: return .variant(.string("nested"))
        case 8: return .byte(UInt8.random(in: 0 ... .max, using: &random))
        default: return .tuple([.int32(1), .string("x")])
        }
    }

    private static func vardict(_ random: inout SeededRandom) -> BusValue {
        let keys = ["title", "fraction", "completed", "total", "unit", "indeterminate", "message", "app-id",
                    "updates-frequently", "state", "lifetime", "lease-seconds", "stall-seconds", "linger-seconds",
                    "cancellable", "pausable", "parent", "weight", "child-failure", "locale", "interval-seconds",
                    "min-percent-step", "tasks", "announcements", "changes", "bogus", ""]
        let count = Int.random(in: 0..<4, using: &random)
        return .vardict((0..<count).map { _ in (keys.randomElement(using: &random)!, value(&random)) })
    }
}
