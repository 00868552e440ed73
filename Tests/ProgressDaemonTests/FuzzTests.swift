import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// Random and hostile calls: each gets success or a named error, the daemon never crashes
/// or leaks, and another client keeps being answered throughout.
final class FuzzTests: DaemonTestCase {
    override var daemonArguments: [String] { ["--max-tasks-per-caller", "64", "--max-tasks", "400"] }
    static var calls: Int { Int(ProcessInfo.processInfo.environment["FUZZ_CALLS"] ?? "") ?? 2_000 }

    /// Errors a hostile call may get: the daemon's own, and GDBus's for calls that do not fit the interface.
    static let allowedErrors: Set<String> = Set(
        ["InvalidName", "InvalidValue", "NoSuchTask", "UnknownOption", "LimitExceeded", "NotAllowed"].map { BusNames.errorPrefix + $0 }
    ).union([
        "org.freedesktop.DBus.Error.InvalidArgs", "org.freedesktop.DBus.Error.UnknownMethod",
        "org.freedesktop.DBus.Error.UnknownObject", "org.freedesktop.DBus.Error.UnknownInterface",
        "org.freedesktop.DBus.Error.UnknownProperty",
    ])

    func testHostileCallsGetNamedErrorsAndNothingBreaks() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["FUZZ_SEED"] ?? "") ?? UInt64(Date().timeIntervalSince1970)
        print("fuzz: seed \(seed), \(Self.calls) calls a round (FUZZ_SEED and FUZZ_CALLS replay it)")
        var random = SeededRandom(state: seed)
        let witness = try bus.connect()
        var slowest = 0.0
        var outcomes: [String: Int] = [:]

        func round() throws {
            for index in 0..<Self.calls {
                let (path, interface, method, arguments) = hostileCall(&random)
                outcomes[attempt(path, interface, method, arguments), default: 0] += 1
                if index % 100 == 0 {
                    let began = Date()
                    try witness.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "List")
                    slowest = max(slowest, Date().timeIntervalSince(began))
                }
            }
        }

        try round()
        let firstRSS = try daemon.residentBytes()
        try round()
        let secondRSS = try daemon.residentBytes()
        print("fuzz: outcomes \(outcomes.sorted { $0.key < $1.key }); slowest answer to another client \(slowest)s; RSS \(firstRSS) -> \(secondRSS)")
        XCTAssertTrue(daemon.process.isRunning, "the daemon survived")
        XCTAssertLessThan(slowest, 5, "another client was answered throughout")
        XCTAssertLessThan(Double(secondRSS), Double(firstRSS) * 1.15 + 4_000_000, "a second round of the same calls does not grow the daemon")
        XCTAssertGreaterThan(outcomes["success", default: 0], Self.calls / 20, "the fuzz also reaches the success paths")
        XCTAssertGreaterThan(outcomes.count, 5, "and many kinds of error")
    }

    /// Sends one call; returns "success" or the error's last name, checking it is a named one.
    private func attempt(_ path: String, _ interface: String, _ method: String, _ arguments: [BusValue]) -> String {
        let error: BusCallError
        do {
            try client.call(BusNames.busName, path, interface, method, arguments, timeoutMilliseconds: 10_000)
            return "success"
        } catch let caught {
            error = caught
        }
        XCTAssertTrue(Self.allowedErrors.contains(error.name), "\(method)\(arguments.map(\.signature)): \(error)")
        XCTAssertFalse(error.message.isEmpty)
        XCTAssertLessThan(error.message.utf8.count, 1_000, "messages quote values short")
        return error.name.components(separatedBy: ".").last!
    }

    /// A Start flood from one connection stops at its cap with LimitExceeded, and the
    /// daemon still serves others.
    func testAStartFloodStopsAtTheCap() throws {
        var refused = 0
        for index in 0..<200 {
            do {
                try start("flood \(index)")
            } catch let error as BusCallError {
                XCTAssertEqual(error.name, BusNames.errorPrefix + "LimitExceeded")
                refused += 1
            }
        }
        XCTAssertEqual(refused, 200 - 64)
        // The cap is per process: another connection of this process is refused too, and
        // another process is served.
        XCTAssertThrowsError(try start("other", on: try bus.connect()))
        let other = try CommandResult.run(
            "gdbus",
            ["call", "--session", "--dest", BusNames.busName, "--object-path", BusNames.managerPath,
             "--method", "\(BusNames.managerInterface).Start", "other", "{}"],
            environment: bus.environment)
        XCTAssertEqual(other.status, 0, other.errors)
    }

    private func hostileCall(_ random: inout SeededRandom) -> (String, String, String, [BusValue]) {
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
        case 70..<74: return (manager, interface, ["RequestCancel", "RequestPause", "RequestResume"].randomElement(using: &random)!,
                              [.string(name(&random))])
        case 74..<78: return (manager, interface, "Describe", [.string(name(&random)), .string(locale(&random))])
        case 78..<80: return (manager, interface, "Snapshot", [.string(locale(&random))])
        case 80..<84:
            let entries = (0..<Int.random(in: 0..<6, using: &random)).map { _ in BusValue.tuple([.string(name(&random)), vardict(&random)]) }
            return (manager, interface, "UpdateMany", [.array(elementType: "(sa{sv})", entries)])
        case 84..<88: return (manager, interface, "Subscribe", [vardict(&random)])
        case 88..<92:
            // Object paths under tasks/, valid or not as escapes.
            let element = ["x", "_zz", "_4", "_C3_A9", "_41", "t1", "_c3", "a_20b"].randomElement(using: &random)!
            return (BusNames.tasksPath + "/" + element, BusNames.propertiesInterface, "GetAll", [.string(BusNames.taskInterface)])
        case 92..<96:
            // The right method with the wrong arguments.
            return (manager, interface, ["Start", "SetFraction", "Update"].randomElement(using: &random)!,
                    [value(&random)])
        default: return (manager, interface, "Frobnicate", [])
        }
    }

    private func name(_ random: inout SeededRandom) -> String {
        switch Int.random(in: 0..<10, using: &random) {
        case 0: return ""
        case 1: return String(repeating: "n", count: 10_000)
        case 2: return "tab\there\u{7}"
        case 3: return "é✓日本"
        default: return "t\(Int.random(in: 0..<30, using: &random))"
        }
    }

    private func text(_ random: inout SeededRandom) -> String {
        switch Int.random(in: 0..<8, using: &random) {
        case 0: return String(repeating: "m", count: 1_000_000)
        case 1: return ""
        case 2: return "\u{0}\u{1}control"
        default: return "message \(Int.random(in: 0..<100, using: &random))"
        }
    }

    private func number(_ random: inout SeededRandom) -> Double {
        [.nan, .infinity, -.infinity, -1, 0, 0.5, 1, 1.0000001, 1e308, -0.0].randomElement(using: &random)!
    }

    private func locale(_ random: inout SeededRandom) -> String {
        ["", "fr_FR.UTF-8", "xx", "de-DE", "sr_RS@latin", "C", String(repeating: "z", count: 5_000), "ar"].randomElement(using: &random)!
    }

    private func value(_ random: inout SeededRandom) -> BusValue {
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

    private func vardict(_ random: inout SeededRandom) -> BusValue {
        let keys = ["title", "fraction", "completed", "total", "unit", "indeterminate", "message", "app-id",
                    "updates-frequently", "state", "lifetime", "lease-seconds", "stall-seconds", "linger-seconds",
                    "cancellable", "pausable", "parent", "weight", "child-failure", "locale", "interval-seconds",
                    "min-percent-step", "tasks", "announcements", "changes", "bogus", ""]
        let count = Int.random(in: 0..<4, using: &random)
        return .vardict((0..<count).map { _ in (keys.randomElement(using: &random)!, value(&random)) })
    }
}
