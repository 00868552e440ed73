import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// 50 client connections drive their own tasks with random valid operations while a
/// listener records every signal; at the end every task's last signal, the final Snapshot
/// and what its client last set must agree. `make soak` runs it for SOAK_SECONDS (3 when
/// unset); SOAK_SEED replays a run, and a failure names its seed.
final class SoakTests: DaemonTestCase {
    static var seconds: Double { Double(ProcessInfo.processInfo.environment["SOAK_SECONDS"] ?? "") ?? 3 }

    /// What a client believes about one of its tasks.
    struct Expected {
        var state = "running"
        var fraction = 0.0
        var indeterminate = false
        var removed = false
    }

    /// What the listener has seen about one task.
    struct Seen {
        var properties: [String: BusValue] = [:]
        var states: Set<String> = []
        var removed = false
        var signalAfterRemoval = false
    }

    func testFiftyClientsAgreeWithTheListenerAndTheSnapshot() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["SOAK_SEED"] ?? "")
            ?? UInt64(Date().timeIntervalSince1970)
        let replay = "replay with SOAK_SEED=\(seed) SOAK_SECONDS=\(Self.seconds)"
        print("soak: seed \(seed), \(Self.seconds) seconds (\(replay))")
        var random = SeededRandom(state: seed)
        let clients = try (0..<50).map { _ in try bus.connect() }
        var seen: [String: Seen] = [:]
        listener.subscribe(interface: BusNames.propertiesInterface, member: "PropertiesChanged") { signal in
            guard signal.path.hasPrefix(BusNames.tasksPath + "/"), let name = Self.name(of: signal.path) else { return }
            if seen[name]?.removed == true { seen[name]?.signalAfterRemoval = true }
            for (key, value) in signal.arguments[1].dictionary ?? [:] {
                seen[name, default: Seen()].properties[key] = value
            }
            if let state = signal.arguments[1]["State"]?.string { seen[name, default: Seen()].states.insert(state) }
        }
        listener.subscribe(interface: BusNames.objectManagerInterface) { signal in
            guard let name = signal.arguments.first?.string.flatMap(Self.name(of:)) else { return }
            if signal.member == "InterfacesAdded" {
                let properties = signal.arguments[1][BusNames.taskInterface]?.dictionary ?? [:]
                seen[name] = Seen(properties: properties, states: [properties["State"]?.string ?? ""])
            } else {
                seen[name, default: Seen()].removed = true
            }
        }
        try listener.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId")

        func round(seconds: Double) throws -> [String: Expected] {
            var expected: [String: Expected] = [:]
            let end = Date().addingTimeInterval(seconds)
            var operations = 0
            while Date() < end {
                let client = Int.random(in: 0..<clients.count, using: &random)
                let name = "c\(client)-t\(Int.random(in: 0..<4, using: &random))"
                try operate(on: name, by: clients[client], expected: &expected, random: &random)
                operations += 1
                if operations % 50 == 0 { BusConnection.drain() }
            }
            print("soak: \(operations) operations on \(expected.count) tasks")
            return expected
        }

        // A warm-up round sets the daemon's memory at its working size; then the real one.
        _ = try round(seconds: min(1, Self.seconds / 3))
        try removeAll()
        let baseline = try daemon.residentBytes()
        seen.removeAll()
        let expected = try round(seconds: Self.seconds)
        // Every operation has been handled (each was a call with its reply); the trailing
        // (coalesced) signals still come, each task's last one agreeing with the Snapshot.
        let snapshot = try manager("Snapshot", [.string("")]).first?.dictionary ?? [:]
        let keys = ["State", "Fraction", "Indeterminate", "Serial", "Label"]
        BusConnection.pump(seconds: 20) {
            expected.allSatisfy { name, model in
                guard !model.removed, let final = snapshot[name]?.dictionary else { return true }
                let last = seen[name]?.properties ?? [:]
                return keys.allSatisfy { last[$0] == final[$0] }
            }
        }
        for (name, model) in expected {
            let final = snapshot[name]?.dictionary
            if model.removed {
                XCTAssertNil(final, "\(name) was removed; \(replay)")
                continue
            }
            guard let final else { XCTFail("\(name) is missing from the Snapshot; \(replay)"); continue }
            XCTAssertEqual(final["State"]?.string, model.state, "\(name); \(replay)")
            XCTAssertEqual(final["Indeterminate"]?.bool, model.indeterminate, "\(name); \(replay)")
            if !model.indeterminate { XCTAssertEqual(final["Fraction"]?.double, model.fraction, "\(name); \(replay)") }
            let last = seen[name]?.properties ?? [:]
            for key in keys {
                XCTAssertEqual(
                    last[key], final[key], "\(name): the last signal and the Snapshot disagree on \(key); \(replay)")
            }
        }
        for (name, view) in seen {
            XCTAssertFalse(view.signalAfterRemoval, "\(name): a signal came after InterfacesRemoved; \(replay)")
        }
        let outcomes = expected.filter { ["finished", "failed", "cancelled"].contains($0.value.state) }
        for (name, model) in outcomes where !model.removed {
            XCTAssertTrue(
                seen[name]?.states.contains(model.state) == true,
                "\(name) was \(model.state) but no signal said so; \(replay)")
        }
        try removeAll()
        let after = try daemon.residentBytes()
        XCTAssertLessThanOrEqual(
            Double(after), Double(baseline) * 1.1, "RSS \(baseline) -> \(after) after the tasks were removed")
    }

    private func operate(on name: String, by client: BusConnection, expected: inout [String: Expected],
                         random: inout SeededRandom) throws {
        func call(_ method: String, _ arguments: [BusValue]) throws {
            try client.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, method, arguments)
        }
        let live = expected[name].map { !$0.removed && ["running", "paused"].contains($0.state) } ?? false
        guard live else {
            try call("Start", [.string(name), .vardict([("cancellable", .bool(true))])])
            expected[name] = Expected()
            return
        }
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<55:
            let fraction = Double(Int.random(in: 0...1000, using: &random)) / 1000
            try call("SetFraction", [.string(name), .double(fraction)])
            expected[name]?.fraction = fraction
            expected[name]?.indeterminate = false
        case 55..<65:
            try call("Pulse", [.string(name)])
            expected[name]?.indeterminate = true
        case 65..<72:
            let state = expected[name]?.state == "paused" ? "running" : "paused"
            try call("Update", [.string(name), .vardict([("state", .string(state))])])
            expected[name]?.state = state
        case 72..<80:
            try call("Finish", [.string(name)])
            expected[name]?.state = "finished"
            if expected[name]?.indeterminate == false { expected[name]?.fraction = 1 }
        case 80..<86:
            try call("Fail", [.string(name), .string("random failure")])
            expected[name]?.state = "failed"
        case 86..<92:
            try call("RequestCancel", [.string(name)])
            try call("Update", [.string(name), .vardict([("state", .string("cancelled"))])])
            expected[name]?.state = "cancelled"
        default:
            try call("Remove", [.string(name)])
            expected[name]?.removed = true
        }
    }

    private func removeAll() throws {
        for name in try manager("List").first?.strings ?? [] { try manager("Remove", [.string(name)]) }
        try settle()  // the removals' signals are in
    }

    static func name(of path: String) -> String? {
        TaskNameText.decode(String(path.dropFirst(BusNames.tasksPath.count + 1)))
    }
}

