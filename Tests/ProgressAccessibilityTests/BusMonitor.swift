import Foundation
import ProgressTestSupport

/// dbus-monitor on a private bus (the bus lets its own user become a monitor): the header
/// line of each message that matches `rules`, in the order the bus routed them, so that a
/// test can see what the daemon asked another peer.
final class BusMonitor {
    private let process = Process()
    private let output = Pipe()
    private var buffer = Data()
    /// Header lines ("method call time=… sender=… -> destination=… … member=…") read so far.
    private(set) var headers: [String] = []
    /// The same messages, each its header line and then its arguments' lines.
    private(set) var messages: [String] = []

    /// Returns once the monitor is in place: messages routed after this are all seen.
    init(address: String, rules: [String]) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-monitor")
        process.arguments = ["--address", address] + rules
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The bus drops a monitor's own name once it becomes one: from then on it sees all.
        guard waitFor(seconds: 20, { $0.contains("member=NameLost") }) else {
            process.terminate()
            throw TestSupportError("dbus-monitor did not start")
        }
    }

    /// Reads until a header line satisfies `condition` (true), or `seconds` pass (false).
    @discardableResult
    func waitFor(seconds: Double = 20, _ condition: (String) -> Bool) -> Bool {
        if headers.contains(where: condition) { return true }
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                if line.hasPrefix(" ") {  // an argument of the message before
                    if !messages.isEmpty { messages[messages.count - 1] += "\n" + line }
                    continue
                }
                headers.append(line)
                messages.append(line)
                if condition(line) { return true }
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return false }
            buffer.append(chunk)
        }
        return false
    }

    func stop() {
        if process.isRunning { process.terminate() }
    }

    deinit { stop() }
}
