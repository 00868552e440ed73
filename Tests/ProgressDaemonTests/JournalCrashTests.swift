import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The journal survives the daemon's own crashes (issue 12): a torn last record is cut
/// before the next acknowledged change is appended, and a state directory the daemon can
/// not use is one line naming the path and the fix, with an exit status systemd does not
/// restart in a loop (RestartPreventExitStatus=78 in systemd/progressd.service).
final class JournalCrashTests: DaemonTestCase {
    func testAStartAcknowledgedAfterATornRecordSurvivesTheNextRestart() throws {
        let persistent: [(String, BusValue)] = [("lifetime", .string("persistent"))]
        try start("before", persistent)
        daemon.kill()
        let journal = try XCTUnwrap(
            try FileManager.default.contentsOfDirectory(atPath: bus.stateDirectory.path)
                .first { $0.hasPrefix("journal-") })
        let handle = try FileHandle(forWritingTo: bus.stateDirectory.appendingPathComponent(journal))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"put":{"name":"torn","ti"#.utf8))
        try handle.close()

        try startDaemon()
        try start("after", persistent)
        let errors = daemon.stopAndReadErrors()
        XCTAssertTrue(errors.contains("cut 25 bytes"), errors)
        try startDaemon()
        let names = try manager("List").first?.array
        XCTAssertEqual(names?.compactMap(\.string), ["after", "before"])
    }

    /// Issue 22, case 8: a journal followed by 1 GiB of NUL bytes was moved aside whole, and
    /// the 20 tasks acknowledged since the last snapshot were gone after the restart. The
    /// journal is read in a bounded stream now: the records before the padding are kept,
    /// the padding cut and logged with its size.
    func testTwentyTasksBeforeAGibibyteOfPaddingSurviveTheRestart() throws {
        let names = (0..<20).map { String(format: "task%02d", $0) }
        for name in names { try start(name, [("lifetime", .string("persistent"))]) }
        daemon.kill()
        let journal = try XCTUnwrap(
            try FileManager.default.contentsOfDirectory(atPath: bus.stateDirectory.path)
                .first { $0.hasPrefix("journal-") })
        let url = bus.stateDirectory.appendingPathComponent(journal)
        let length = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
        XCTAssertEqual(truncate(url.path, off_t(length) + (off_t(1) << 30)), 0, "a sparse gibibyte of NUL bytes")

        try startDaemon()
        let listed = try manager("List").first?.array
        XCTAssertEqual(listed?.compactMap(\.string).sorted(), names, "every acknowledged task survived")
        XCTAssertEqual(
            try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int, length, "the padding was cut")
        let errors = daemon.stopAndReadErrors()
        XCTAssertTrue(errors.contains("cut \(1 << 30) bytes"), errors)
    }
}

/// A state directory the daemon can not use: one line, and an exit status systemd does not
/// restart in a loop.
final class StateDirectoryExitTests: DaemonTestCase {
    override var startsDaemonAtSetUp: Bool { false }

    func testAStateDirectoryThatIsAFileExits78WithOneLine() throws {
        let file = bus.stateDirectory.deletingLastPathComponent().appendingPathComponent("not-a-directory")
        XCTAssertTrue(FileManager.default.createFile(atPath: file.path, contents: Data()))
        let result = try CommandResult.run(
            BuildProducts.url(of: "progressd").path, ["--state-directory", file.path], environment: bus.environment)
        XCTAssertEqual(result.status, 78)
        let lines = result.errors.split(separator: "\n").filter { !$0.contains("dbus-daemon") }
        XCTAssertEqual(lines.count, 1, result.errors)
        XCTAssertTrue(lines.first?.contains("\(file.path) is not a directory") == true, result.errors)
        XCTAssertTrue(lines.first?.contains("--state-directory") == true, result.errors)
        let unit = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../systemd/progressd.service").standardized, encoding: .utf8)
        XCTAssertTrue(unit.contains("RestartPreventExitStatus=64 78"))
    }
}
