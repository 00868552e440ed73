import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// The state directory on a real small filesystem that fills up, fails with EIO or is
/// remounted read-only: a write that can not reach the journal is refused with a named
/// error, nothing acknowledged is lost across a SIGKILL, the daemon says it is degraded,
/// and it recovers by itself once the disk does. Runs as root (`make soak` and `make test`);
/// without root it skips, and under CI=true it fails.
final class StorageFaultTests: DaemonTestCase {
    override var startsDaemonAtSetUp: Bool { false }

    private let title = String(repeating: "t", count: 1024)
    private let message = String(repeating: "m", count: 4096)

    /// Starts persistent tasks with a 1 KB title and a 4 KB message, one call each; returns
    /// the names that were acknowledged and the errors of those that were not.
    private func startLarge(_ names: [String]) -> (acknowledged: [String], refused: [String: BusCallError]) {
        var acknowledged: [String] = []
        var refused: [String: BusCallError] = [:]
        for name in names {
            do {
                _ = try start(name, [
                    ("lifetime", .string("persistent")), ("title", .string(title)), ("message", .string(message)),
                ])
                acknowledged.append(name)
            } catch let error as BusCallError {
                refused[name] = error
            } catch {
                XCTFail("\(name): \(error)")
            }
        }
        return (acknowledged, refused)
    }

    private func listed() throws -> Set<String> { Set(try manager("List").first?.strings ?? []) }

    private func storageState() throws -> String? {
        try client.call(BusNames.busName, BusNames.managerPath, BusNames.propertiesInterface, "Get",
                        [.string(BusNames.managerInterface), .string("StorageState")]).first?.string
    }

    /// The StorageState values the manager's PropertiesChanged announces, in order.
    private func recordStorageStates() throws -> () -> [String] {
        var states: [String] = []
        listener.subscribe(
            interface: BusNames.propertiesInterface, member: "PropertiesChanged", path: BusNames.managerPath
        ) { signal in
            if let state = signal.arguments[1].dictionary?["StorageState"]?.string { states.append(state) }
        }
        try listener.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId")
        return { states }
    }

    private func waitForStorage(_ state: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(
            BusConnection.pump(seconds: 20) { (try? self.storageState()) == state },
            "StorageState became \(state) (is \((try? storageState()) ?? "nil"))", file: file, line: line)
    }

    /// What every fault test checks once the disk failed: `over`, a persistent task, is
    /// refused with `error` naming `reason`; the daemon says it is degraded (`state`), once;
    /// a lease task still starts (in memory); what was acknowledged is still served. Then
    /// `heal` gives the disk back: the daemon says "ok" by itself and takes persistent tasks
    /// again. After kill -9 every acknowledged task comes back, and the refused one does not.
    private func checkFault(
        _ disk: SmallFilesystem, acknowledged before: [String], error name: String, state: String, reason: String,
        heal: () throws -> Void, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let states = try recordStorageStates()
        let (none, refused) = startLarge(["over"])
        XCTAssertEqual(none, [], "a write the disk does not take is refused", file: file, line: line)
        let error = try XCTUnwrap(refused["over"], file: file, line: line)
        XCTAssertEqual(error.name, BusNames.errorPrefix + name, error.message, file: file, line: line)
        XCTAssertTrue(error.message.contains(disk.mountPoint.path), error.message, file: file, line: line)
        XCTAssertTrue(error.message.contains(reason), error.message, file: file, line: line)
        XCTAssertTrue(error.message.contains("free"), error.message, file: file, line: line)
        XCTAssertFalse(try listed().contains("over"), "the refused task is not kept in memory either",
                       file: file, line: line)
        XCTAssertEqual(try storageState(), state, file: file, line: line)
        _ = try start("in-memory")
        XCTAssertTrue(Set(before).isSubset(of: try listed()), "what is in memory is still served",
                      file: file, line: line)
        XCTAssertTrue(BusConnection.pump(seconds: 5) { states() == [state] }, "\(states())", file: file, line: line)

        try heal()
        waitForStorage("ok", file: file, line: line)
        XCTAssertTrue(BusConnection.pump(seconds: 5) { states() == [state, "ok"] }, "said once each: \(states())",
                      file: file, line: line)
        let (after, _) = startLarge(["after"])
        XCTAssertEqual(after, ["after"], "a healed disk takes writes again", file: file, line: line)

        try restartDaemon(killing: true)
        let back = try listed()
        XCTAssertEqual(Set(before + ["in-memory", "after"]).subtracting(back), [], "nothing acknowledged is lost",
                       file: file, line: line)
        XCTAssertFalse(back.contains("over"), file: file, line: line)
    }

    /// The repro: 600 persistent tasks of 5 KB on a 2 MB ext4 image, kill -9, restart.
    /// Before, every Start was answered with success and 167 came back.
    func testAFullDiskRefusesWhatItCanNotKeepAndLosesNothingAcknowledged() throws {
        let disk = try SmallFilesystem.ext4(bytes: 2 << 20)
        defer { disk.remove() }
        try startDaemon(["--state-directory", disk.mountPoint.path])
        let (acknowledged, refused) = startLarge((0..<600).map { "big\($0)" })
        print("acknowledged \(acknowledged.count) of 600, refused \(refused.count)")
        XCTAssertFalse(refused.isEmpty, "a 2 MB disk can not keep 3 MB of tasks: some Start must be refused")
        for (name, error) in refused {
            XCTAssertEqual(error.name, BusNames.errorPrefix + "StorageFull", "\(name): \(error.message)")
            XCTAssertTrue(error.message.contains(disk.mountPoint.path), error.message)
        }
        XCTAssertEqual(try storageState(), "full")
        try restartDaemon(killing: true)
        let back = try listed()
        print("after kill -9: \(back.count) came back")
        XCTAssertEqual(Set(acknowledged).subtracting(back).count, 0, "no acknowledged task is lost")
        XCTAssertEqual(back.intersection(refused.keys), [], "no refused task comes back")
    }

    /// ENOSPC in the middle of a record: the disk takes part of a 5 KB record, the daemon cuts
    /// it off again (the journal ends with a whole line), refuses the Start, and recovers once
    /// space is freed.
    func testENOSPCMidRecordIsCutOffRefusedAndRecoveredFrom() throws {
        let disk = try SmallFilesystem.ext4(bytes: 2 << 20)
        defer { disk.remove() }
        try startDaemon(["--state-directory", disk.mountPoint.path])
        let (before, _) = startLarge((0..<10).map { "kept\($0)" })
        XCTAssertEqual(before.count, 10)
        try disk.fill(leaving: 2048)
        let journal = try XCTUnwrap(
            FileManager.default.contentsOfDirectory(atPath: disk.mountPoint.path).first { $0.hasPrefix("journal-") })
        let path = disk.mountPoint.appendingPathComponent(journal).path
        let length = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        try checkFault(
            disk, acknowledged: before, error: "StorageFull", state: "full", reason: "No space left on device"
        ) {
            let now = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
            XCTAssertEqual(now, length, "the part of the record the disk took is cut off again")
            try disk.freeSpace()
        }
    }

    /// EIO: the loop device under the filesystem ends just past what it holds, so every new
    /// block is written past the device's end and fails (fdatasync answers EIO).
    func testEIORefusesWithTheSystemsReasonAndRecovers() throws {
        let disk = try SmallFilesystem.ext4(bytes: 4 << 20)
        defer { disk.remove() }
        try startDaemon(["--state-directory", disk.mountPoint.path])
        let (before, _) = startLarge((0..<10).map { "kept\($0)" })
        XCTAssertEqual(before.count, 10)
        try disk.failWrites()
        try checkFault(
            disk, acknowledged: before, error: "StorageFailed", state: "failed", reason: "Input/output error"
        ) {
            try disk.healWrites()
        }
    }

    /// A filesystem the kernel turned read-only (errors=remount-ro after an error): EROFS,
    /// until a person mounts it again.
    func testAReadOnlyRemountRefusesAndRecoversOnceMountedAgain() throws {
        let disk = try SmallFilesystem.ext4(bytes: 2 << 20, options: "errors=remount-ro")
        defer { disk.remove() }
        try startDaemon(["--state-directory", disk.mountPoint.path])
        let (before, _) = startLarge((0..<10).map { "kept\($0)" })
        XCTAssertEqual(before.count, 10)
        try disk.failIntoReadOnly()
        try checkFault(
            disk, acknowledged: before, error: "StorageFailed", state: "failed", reason: "Read-only file system"
        ) {
            try disk.mountAgain()
        }
    }
}
