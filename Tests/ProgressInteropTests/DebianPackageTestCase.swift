import Foundation
import ProgressTestSupport
import XCTest

/// What the tests of the Debian package share: the .deb `make interop` built (PROGRESSD_DEB),
/// a scratch folder, and commands run as on a machine with the package and no Swift toolchain,
/// inside a private mount namespace (helpers/as-installed.sh), so that this machine is left as
/// it was: nothing they install reaches its /usr, /etc or /var.
class DebianPackageTestCase: XCTestCase {
    static let helpers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("helpers")
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    var deb = ""
    var scratch: URL!

    override func setUpWithError() throws {
        let environment = ProcessInfo.processInfo.environment
        guard environment["PROGRESSD_INTEROP"] == "1" else {
            throw XCTSkip("the package's tests run with `make interop` (PROGRESSD_INTEROP=1)")
        }
        deb = try XCTUnwrap(
            environment["PROGRESSD_DEB"], "PROGRESSD_DEB names the .deb: `make interop` builds it (make deb)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: deb), "\(deb) is missing: run `make deb`")
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("progressd-deb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDown() {
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
    }

    func run(_ executable: String, _ arguments: [String]) throws -> CommandResult {
        try CommandResult.run(executable, arguments, environment: ProcessInfo.processInfo.environment)
    }

    /// A variable `make interop` sets, naming what it built.
    func required(_ variable: String) throws -> String {
        try XCTUnwrap(ProcessInfo.processInfo.environment[variable], "\(variable) is set by `make interop`")
    }

    /// The prefix of the toolchain this test runs on (where its own libswiftCore.so is loaded from).
    func toolchainPrefix() throws -> String {
        // Read to the end: /proc's files say they are empty, and String(contentsOfFile:) believes it.
        let maps = String(
            decoding: try XCTUnwrap(FileHandle(forReadingAtPath: "/proc/self/maps")).readDataToEndOfFile(),
            as: UTF8.self)
        let library = try XCTUnwrap(
            maps.split(separator: "\n").compactMap { $0.split(separator: " ").last }
                .first { $0.hasSuffix("/libswiftCore.so") },
            "the test itself loads libswiftCore.so from the toolchain")
        let range = try XCTUnwrap(
            library.range(of: "/usr/lib/swift/"), "a toolchain laid out as <prefix>/usr/lib/swift")
        return String(library[..<range.lowerBound])
    }

    /// COMMAND run by `as-installed.sh MODE` under `unshare -m`, its scratch folder this test's.
    func asInstalled(_ mode: String, _ command: [String]) throws -> CommandResult {
        try run(
            "setpriv",
            ["--pdeathsig", "KILL", "unshare", "-m", "--propagation", "private", "sh",
             Self.helpers.appendingPathComponent("as-installed.sh").path, mode, deb, scratch.path,
             try toolchainPrefix()]
                + command)
    }

    /// A helper's "key: value" lines, the values of each key in order.
    func keyedLines(_ output: String) -> [String: [String]] {
        var values: [String: [String]] = [:]
        for line in output.split(separator: "\n") {
            guard let colon = line.range(of: ": ") else { continue }
            values[String(line[..<colon.lowerBound]), default: []].append(String(line[colon.upperBound...]))
        }
        return values
    }
}
