import Foundation
import ProgressModel
@testable import ProgressState
import ProgressTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// Signals delivered to the writer while it was blocked (the handler's count).
nonisolated(unsafe) private var interruptions = 0

/// The errors the state directory's files meet for real: a write interrupted by a signal
/// (EINTR, or a short write) goes on where it stopped; a full disk is an error naming the
/// path and the system's reason, and the journal keeps nothing of a record it half took.
final class OpenFileFaultTests: XCTestCase {
    /// 1 MiB into a FIFO nobody reads yet: the write blocks once the pipe's 64 KiB are full,
    /// and SIGUSR1 (a handler without SA_RESTART) interrupts it, more than once. Every byte
    /// arrives, in order.
    func testAWriteInterruptedBySignalsGoesOnWhereItStopped() throws {
        let directory = Scratch.directory("openfile-eintr")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        // Opened for reading first (without waiting for a writer), so the writer's open does not block.
        let reader = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(reader, 0)
        defer { close(reader) }
        _ = fcntl(reader, F_SETFL, 0)

        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in interruptions += 1 }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        var previous = sigaction()
        XCTAssertEqual(sigaction(SIGUSR1, &action, &previous), 0)
        defer { sigaction(SIGUSR1, &previous, nil) }
        interruptions = 0

        let data = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let writerThread = pthread_self()
        // The reader thread fills it; it is read after `done`, which orders the two.
        nonisolated(unsafe) var received = Data()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            // The writer is blocked on the full pipe while these arrive.
            for _ in 0..<5 {
                usleep(50_000)
                pthread_kill(writerThread, SIGUSR1)
            }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = read(reader, &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                received.append(contentsOf: buffer[..<count])
            }
            done.signal()
        }
        do {
            let writer = try OpenFile(fifo, flags: O_WRONLY)
            try writer.write(data)
        }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(interruptions, 5, "the signals reached the writer")
        XCTAssertEqual(received.count, data.count)
        XCTAssertTrue(received == data, "every byte, in order")
    }

    /// A 64 KiB tmpfs: OpenFile's write of 128 KiB fails with ENOSPC, naming the path and
    /// the reason; the state directory refuses a record the disk half takes with
    /// StorageFull, cuts it off, and once there is space again rewrites itself.
    func testAFullDiskIsAnErrorNamingThePathAndNothingOfTheRecordIsKept() throws {
        let disk = try SmallFilesystem.tmpfs(bytes: 64 << 10)
        defer { disk.remove() }
        let path = disk.mountPoint.appendingPathComponent("big").path
        do {
            let file = try OpenFile(path, flags: O_WRONLY | O_CREAT)
            XCTAssertThrowsError(try file.write(Data(count: 128 << 10))) { error in
                let error = error as! StateFileError
                XCTAssertEqual(error.code, ENOSPC)
                XCTAssertTrue(error.isFull)
                XCTAssertEqual(error.description, "could not write \(path): No space left on device")
            }
        }
        unlink(path)

        let state = try StateDirectory(url: disk.mountPoint)
        _ = state.load()
        func record(_ name: String) -> TaskRecord {
            TaskRecord(fields: ["name": .string(name), "message": .string(String(repeating: "m", count: 4096))])
        }
        try state.write([record("kept")], removed: [])
        let journal = disk.mountPoint.appendingPathComponent("journal-0.jsonl").path
        let length = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: journal)[.size] as? Int)
        try disk.fill(leaving: 2048)
        XCTAssertThrowsError(try state.write([record("half")], removed: [])) { error in
            guard case .storageFull(let message) = error as? ProgressError else { return XCTFail("\(error)") }
            XCTAssertTrue(message.contains("the state directory \(disk.mountPoint.path) is full"), message)
            XCTAssertTrue(message.contains("No space left on device"), message)
        }
        let now = try FileManager.default.attributesOfItem(atPath: journal)[.size] as? Int
        XCTAssertEqual(now, length, "the half record is cut off")
        try disk.freeSpace()
        state.attach(recordsSource: { [record("kept"), record("after")] }, recordCount: { 2 })
        try state.rewrite()
        let names = try StateDirectory(url: disk.mountPoint).load().records.map(\.name)
        XCTAssertEqual(names, ["kept", "after"])
    }
}
