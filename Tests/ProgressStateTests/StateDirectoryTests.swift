import Foundation
import ProgressModel
import ProgressState
import XCTest
#if canImport(Glibc)
import Glibc
#endif

final class StateDirectoryTests: XCTestCase {
    var url: URL!

    override func setUpWithError() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("state-\(UUID().uuidString)")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: url)
    }

    func record(_ name: String, fraction: Double = 0, state: TaskState = .running) -> TaskRecord {
        TaskRecord(fields: [
            "name": .string(name), "title": .string("T \(name)"), "state": .string(state.rawValue),
            "indeterminate": .bool(false), "fraction": .double(fraction), "completed": .integer(0),
            "total": .integer(0), "unit": .string(""), "message": .string(""), "appId": .string(""),
            "updatesFrequently": .bool(false), "serial": .integer(1), "created": .integer(1), "updated": .integer(2),
            "lifetime": .string("lease"), "leaseSeconds": .integer(600), "stallSeconds": .integer(30),
            "lingerSeconds": .integer(60), "cancellable": .bool(false), "pausable": .bool(false),
            "cancelRequested": .bool(false), "weight": .double(1), "childFailure": .string("fail"),
        ])
    }

    /// Writes behind the state directory's back, as a crash or a disk error would leave it.
    func appendToJournal(_ text: String) throws {
        let handle = try FileHandle(forWritingTo: url.appendingPathComponent("journal-0.jsonl"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
        try handle.close()
    }

    func files() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
    }

    func testWritesAreThereAfterAReopen() throws {
        let state = try StateDirectory(url: url)
        XCTAssertTrue(state.load().records.isEmpty)
        try state.write([record("a"), record("b")], removed: [])
        try state.write([record("a", fraction: 0.5, state: .finished)], removed: ["b"])
        let (records, problems) = try StateDirectory(url: url).load()
        XCTAssertEqual(problems, [])
        XCTAssertEqual(records, [record("a", fraction: 0.5, state: .finished)])
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o700, "state is private")
    }

    /// Issue 12: the next acknowledged Start was appended onto the torn line and lost.
    func testATornLastLineIsCutBeforeAnythingIsAppended() throws {
        let state = try StateDirectory(url: url)
        _ = state.load()
        try state.write([record("a")], removed: [])
        let torn = #"{"put":{"name":"b","tit"#
        try appendToJournal(torn)
        let reopened = try StateDirectory(url: url)
        let (records, problems) = reopened.load()
        XCTAssertEqual(records.map(\.name), ["a"])
        XCTAssertEqual(problems.count, 1)
        XCTAssertTrue(problems[0].contains("cut \(torn.utf8.count) bytes"), problems[0])
        try reopened.write([record("c")], removed: [])
        let (after, again) = try StateDirectory(url: url).load()
        XCTAssertEqual(after.map(\.name), ["a", "c"], "the record written after the cut survives")
        XCTAssertEqual(again, [])
    }

    func testADamagedLineInTheMiddleIsSkippedAndReported() throws {
        let state = try StateDirectory(url: url)
        _ = state.load()
        try state.write([record("a")], removed: [])
        try appendToJournal("garbage\n")
        try state.write([record("b")], removed: [])
        let (records, problems) = try StateDirectory(url: url).load()
        XCTAssertEqual(records.map(\.name), ["a", "b"])
        XCTAssertEqual(problems.count, 1)
        XCTAssertTrue(problems[0].contains("line 2"), problems[0])
    }

    func testAnUnreadableSnapshotIsMovedAsideAndTheDaemonStartsEmpty() throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try Data("{ not json".utf8).write(to: url.appendingPathComponent("tasks-3.json"))
        let state = try StateDirectory(url: url)
        let (records, problems) = state.load()
        XCTAssertTrue(records.isEmpty)
        XCTAssertEqual(problems.count, 1)
        XCTAssertTrue(problems[0].contains("unreadable"), problems[0])
        XCTAssertTrue(files().contains { $0.hasPrefix("tasks-3.json.") && $0.hasSuffix(".corrupt") }, "\(files())")
        try state.write([record("fresh")], removed: [])
        XCTAssertEqual(try StateDirectory(url: url).load().records.map(\.name), ["fresh"], "and it goes on working")
    }

    func testCompactionStartsANewGenerationAndDropsTheOld() throws {
        let state = try StateDirectory(url: url)
        _ = state.load()
        var current: [String: TaskRecord] = [:]
        state.attach(recordsSource: { current.values.sorted { $0.name < $1.name } }, recordCount: { current.count })
        for step in 0..<1_100 {
            let changed = record("t\(step % 10)", fraction: Double(step) / 1_100)
            current[changed.name] = changed
            try state.write([changed], removed: [])
        }
        XCTAssertEqual(files(), ["journal-1.jsonl", "tasks-1.json"])
        let (records, problems) = try StateDirectory(url: url).load()
        XCTAssertEqual(problems, [])
        XCTAssertEqual(records.sorted { $0.name < $1.name }, current.values.sorted { $0.name < $1.name })
    }

    /// A crash after the new snapshot is in place but before the old generation is gone:
    /// the newest snapshot wins and the older journal is never replayed over it.
    func testALeftoverOlderGenerationIsNeverReplayed() throws {
        let state = try StateDirectory(url: url)
        _ = state.load()
        try state.write([record("a", fraction: 0.9)], removed: [])
        state.attach(recordsSource: { [self.record("a", fraction: 0.9)] }, recordCount: { 1 })
        try state.rewrite()
        // Put back an old journal, as if the crash came before its removal.
        try Data((#"{"put":"# + String(decoding: try JSONEncoder().encode(record("a", fraction: 0.1)), as: UTF8.self)
                  + "}\n").utf8)
            .write(to: url.appendingPathComponent("journal-0.jsonl"))
        let (records, _) = try StateDirectory(url: url).load()
        XCTAssertEqual(records.first?.fields["fraction"]?.double, 0.9)
        XCTAssertFalse(files().contains("journal-0.jsonl"), "the old generation is cleaned up")
    }

    func testTheDefaultDirectoryFollowsXDG() {
        XCTAssertEqual(
            StateDirectory.defaultURL(environment: ["XDG_STATE_HOME": "/x/state", "HOME": "/h"]).path,
            "/x/state/progressd")
        XCTAssertEqual(StateDirectory.defaultURL(environment: ["HOME": "/h"]).path, "/h/.local/state/progressd")
        XCTAssertEqual(
            StateDirectory.defaultURL(
                environment: ["STATE_DIRECTORY": "/run/user/1000/state/progressd", "XDG_STATE_HOME": "/x"]).path,
            "/run/user/1000/state/progressd", "systemd's StateDirectory= comes first")
        XCTAssertEqual(
            StateDirectory.defaultURL(environment: ["XDG_STATE_HOME": "relative", "HOME": "/h"]).path,
            "/h/.local/state/progressd", "XDG says relative paths are invalid and ignored")
    }

    func testDamageInTheMiddleIsCountedInOneLogLine() throws {
        let state = try StateDirectory(url: url)
        _ = state.load()
        try state.write([record("a")], removed: [])
        try appendToJournal("garbage\n" + String(repeating: "\0", count: 5_000) + "\n{\"put\":\n")
        try state.write([record("b")], removed: [])
        let (records, problems) = try StateDirectory(url: url).load()
        XCTAssertEqual(records.map(\.name), ["a", "b"])
        XCTAssertEqual(problems.count, 1, "\(problems)")
        XCTAssertTrue(problems[0].hasPrefix("skipped 3 damaged records"), problems[0])
    }

    /// Issue 12: a journal padded with 1 GiB of NUL bytes took 23 s and 1 GB to start.
    /// Issue 22: then it was moved aside whole, losing its records; now it is read in a
    /// bounded stream, its records kept and the padding cut as a torn tail.
    /// A snapshot holding "a", and a journal after it.
    func compactedState() throws -> StateDirectory {
        let state = try StateDirectory(url: url)
        _ = state.load()
        state.attach(recordsSource: { [self.record("a")] }, recordCount: { 1 })
        try state.write([record("a")], removed: [])
        try state.rewrite()
        return state
    }

    func testAPaddedJournalKeepsItsRecordsAndLosesItsPadding() throws {
        try compactedState().write([record("b")], removed: [])
        let journal = try XCTUnwrap(files().first { $0.hasPrefix("journal-") })
        let journalURL = url.appendingPathComponent(journal)
        let length = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: journalURL.path)[.size] as? Int)
        let handle = try FileHandle(forWritingTo: journalURL)
        // Holes, past the size a state file may be, and NUL bytes written out after them.
        XCTAssertEqual(ftruncate(handle.fileDescriptor, off_t(600) << 20), 0)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(repeating: 0, count: 3 << 20))
        try handle.close()
        let (records, problems) = try StateDirectory(url: url).load()
        XCTAssertEqual(records.map(\.name), ["a", "b"], "the record before the padding is kept")
        XCTAssertEqual(problems, [
            "the end of \(journalURL.path) after its last complete record was torn by a crash (or padded): "
                + "cut \((600 << 20) + (3 << 20) - length) bytes from its end",
        ])
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: journalURL.path)[.size] as? Int, length)
        XCTAssertFalse(files().contains { $0.hasSuffix(".corrupt") }, "\(files())")

        // Damage in the middle of a large journal: the lines after it are still records.
        let tail = try FileHandle(forWritingTo: journalURL)
        try tail.seekToEnd()
        try tail.write(contentsOf: Data(repeating: 0, count: 5 << 20) + Data("\n".utf8))
        try tail.close()
        let reopened = try StateDirectory(url: url)
        _ = reopened.load()
        try reopened.write([record("c")], removed: [])
        let (after, damage) = try StateDirectory(url: url).load()
        XCTAssertEqual(after.map(\.name), ["a", "b", "c"])
        XCTAssertEqual(damage.count, 1)
        XCTAssertTrue(damage.first?.hasPrefix("skipped 1 damaged record") == true, "\(damage)")
    }

    func testAnOversizedSnapshotIsRefusedAndMovedAside() throws {
        _ = try compactedState()
        var small = Limits()
        small.maxStateFileBytes = 100
        let snapshot = try XCTUnwrap(files().first { $0.hasPrefix("tasks-") && $0.hasSuffix(".json") })
        let (none, refused) = try StateDirectory(url: url, limits: small).load()
        XCTAssertEqual(none, [])
        XCTAssertTrue(refused.first?.contains("more than the 100") == true, "\(refused)")
        XCTAssertFalse(files().contains(snapshot))
    }

    func testAStateDirectoryThatIsAFileIsOneLineNamingThePathAndTheFix() throws {
        XCTAssertTrue(FileManager.default.createFile(atPath: url.path, contents: Data("x".utf8)))
        XCTAssertThrowsError(try StateDirectory(url: url)) { error in
            let text = "\(error)"
            XCTAssertTrue(
                text.contains(url.path) && text.contains("is not a directory") && text.contains("--state-directory"),
                text)
            XCTAssertFalse(text.contains("\n"))
        }
    }
}
