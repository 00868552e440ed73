import Foundation
import ProgressTestSupport
import XCTest

/// Runs python/atspi_tool.py (pyatspi, as an assistive tool) and reads its JSON.
struct AtspiTool {
    static let python = "/usr/bin/python3"
    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("python/atspi_tool.py").path
    }

    let environment: [String: String]

    /// The progressd application as pyatspi walks it; ["found": false] when it is not listed.
    func tree() throws -> [String: Any] {
        let result = try CommandResult.run(Self.python, [Self.script, "tree"], environment: environment)
        guard result.status == 0, let data = result.output.data(using: .utf8),
              let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw TestSupportError("atspi_tool.py tree failed (\(result.status)): \(result.errors)")
        }
        return object
    }

    /// Polls the tree until `condition` holds, or `seconds` pass; returns the last tree.
    func tree(within seconds: Double, until condition: ([String: Any]) -> Bool) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(seconds)
        var last: [String: Any] = [:]
        repeat {
            last = try tree()
            if condition(last) { return last }
            Thread.sleep(forTimeInterval: 0.2)
        } while Date() < deadline
        return last
    }

    /// A pyatspi listener for `events`, registered with the registry before this returns.
    func listen(_ events: [String]) throws -> AtspiListener {
        try AtspiListener(events: events, environment: environment)
    }
}

/// A running atspi_tool.py listen: `finish` stops it and returns what it heard.
final class AtspiListener {
    private let process = Process()
    private let output = Pipe()
    private let stopFile: URL
    private let exit: ProcessExit
    private var buffer = Data()

    init(events: [String], environment: [String: String]) throws {
        stopFile = FileManager.default.temporaryDirectory.appendingPathComponent("atspi-stop-\(UUID().uuidString)")
        process.executableURL = URL(fileURLWithPath: AtspiTool.python)
        process.arguments = [AtspiTool.script, "listen"] + events + ["--stop", stopFile.path]
        process.environment = environment
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        exit = ProcessExit(process)
        try process.run()
        let ready = readLine(within: 30)
        guard ready == "READY" else {
            process.terminate()
            throw TestSupportError("the pyatspi listener did not start: \(ready ?? "nothing")")
        }
    }

    private func readLine(within seconds: Double) -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
        return nil
    }

    /// Events received so far are returned once the listener has stopped. With `value` (or
    /// `data`), it stops once an event carrying that value (or text) has been heard, or 20 s
    /// after this call.
    func finish(afterHearingValue value: Double? = nil, data: String? = nil) throws -> [[String: Any]] {
        let owed = data.map { "data:" + $0 } ?? value.map { "\($0)" }
        _ = FileManager.default.createFile(atPath: stopFile.path, contents: owed.map { Data($0.utf8) })
        defer { try? FileManager.default.removeItem(at: stopFile) }
        let line = readLine(within: 60)
        exit.wait()
        guard let line, let events = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [[String: Any]] else {
            throw TestSupportError("the pyatspi listener printed no events: \(line ?? "nothing")")
        }
        return events
    }

    deinit { if process.isRunning { process.terminate() } }
}

/// Helpers for the JSON trees.
extension Dictionary where Key == String, Value == Any {
    var children: [[String: Any]] { self["children"] as? [[String: Any]] ?? [] }
    var name: String? { self["name"] as? String }
    var states: [String] { self["states"] as? [String] ?? [] }
    var value: [String: Any] { self["value"] as? [String: Any] ?? [:] }

    /// The bar (anywhere below) whose task name is `task`.
    func bar(_ task: String) -> [String: Any]? {
        for child in children {
            if (child["attributes"] as? [String: String])?["task-name"] == task { return child }
            if let found = child.bar(task) { return found }
        }
        return nil
    }
}
