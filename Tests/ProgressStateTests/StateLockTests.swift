import Foundation
import ProgressState
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// One daemon at a time holds a state directory: a second taker finds the holder's process
/// id, and the lock goes with the holder.
final class StateLockTests: XCTestCase {
    var url: URL!

    override func setUpWithError() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("state-lock-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: url)
    }

    func testASecondTakerFindsTheHolderUntilItLetsGo() throws {
        var first: StateLock? = try XCTUnwrap(held(try StateLock.take(in: url, environment: [:])))
        guard case .taken(let holder) = try StateLock.take(in: url, environment: [:]) else {
            return XCTFail("a second taker got the lock while the first held it")
        }
        XCTAssertEqual(holder, getpid())
        XCTAssertNotNil(first)
        first = nil
        XCTAssertNotNil(held(try StateLock.take(in: url, environment: [:])), "free once its holder is gone")
    }

    func testAStrayInheritedNumberIsNotTakenForTheLock() throws {
        // Descriptor 0 is open, but not on the lock file: the lock is taken afresh.
        let lock = held(try StateLock.take(in: url, environment: [StateLock.inheritedVariable: "0"]))
        XCTAssertNotNil(lock)
        guard case .taken = try StateLock.take(in: url, environment: [:]) else { return XCTFail("the fresh lock is held") }
    }

    private func held(_ outcome: StateLock.Outcome) -> StateLock? {
        if case .held(let lock) = outcome { lock } else { nil }
    }
}
