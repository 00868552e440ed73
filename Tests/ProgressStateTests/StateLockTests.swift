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
        guard case .taken = try StateLock.take(in: url, environment: [:]) else {
            return XCTFail("the fresh lock is held")
        }
    }

    /// With a runtime directory the lock is there, so that it keeps no file of the state
    /// directory's filesystem open (one remounted after an error can go).
    func testTheLockIsInTheRuntimeDirectoryWhenThereIsOne() throws {
        let runtime = url.appendingPathComponent("runtime")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        let state = url.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        let environment = ["XDG_RUNTIME_DIR": runtime.path]
        let lock = held(try StateLock.take(in: state, environment: environment))
        XCTAssertNotNil(lock)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: state.path), [])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(
            atPath: runtime.appendingPathComponent("progressd").path).count, 1)
        guard case .taken = try StateLock.take(in: state, environment: environment) else {
            return XCTFail("held already")
        }
        XCTAssertNotNil(
            held(try StateLock.take(in: url, environment: environment)), "another state directory, another lock")
    }

    private func held(_ outcome: StateLock.Outcome) -> StateLock? {
        if case .held(let lock) = outcome { lock } else { nil }
    }
}
