import Foundation
import ProgressTestSupport
import XCTest

/// The package's DEP-8 tests (debian/tests/control: every program's --version, a task through
/// a bus-activated daemon, German and Arabic texts, a PNG, the manual pages, the user units
/// verified, the GNOME Shell extension's files), run by Debian's runner, autopkgtest, against
/// the package installed on this machine (`-- null`). It installs into overlays of /usr, /etc
/// and /var that vanish with their mount namespace (as-installed.sh overlay).
final class DebianAutopkgtestTests: DebianPackageTestCase {
    /// The tests debian/tests/control declares, in its order.
    func declaredTests() throws -> [String] {
        let control = try String(
            contentsOf: Self.repository.appendingPathComponent("debian/tests/control"), encoding: .utf8)
        return control.split(separator: "\n").filter { $0.hasPrefix("Tests:") }
            .flatMap { $0.dropFirst("Tests:".count).split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init) }
    }

    func testEveryDep8TestPassesAgainstTheInstalledPackage() throws {
        let declared = try declaredTests()
        let installedBefore = try run("dpkg-query", ["--show", "progressd"]).status == 0
        XCTAssertEqual(
            Set(declared),
            ["versions", "bus-activation", "labels", "render-png", "manual-pages", "user-units",
             "gnome-shell-extension"])
        // autopkgtest copies the source tree it is given to the testbed: debian/ is all the
        // tests need (control, changelog, tests/), where the repository holds gigabytes of builds.
        let source = scratch.appendingPathComponent("source")
        try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: Self.repository.appendingPathComponent("debian"), to: source.appendingPathComponent("debian"))
        let output = scratch.appendingPathComponent("autopkgtest")
        // dpkg wants ldconfig and start-stop-daemon on PATH, which as-installed.sh keeps to /usr/bin:/bin.
        let result = try asInstalled(
            "overlay",
            ["env", "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "autopkgtest", "--output-dir", output.path, deb, source.path,
             "--", "null"])
        let log = (try? String(contentsOf: output.appendingPathComponent("log"), encoding: .utf8))
            ?? result.output + result.errors
        let summary = (try? String(contentsOf: output.appendingPathComponent("summary"), encoding: .utf8)) ?? ""
        var outcomes: [String: String] = [:]
        for line in summary.split(separator: "\n") {
            let words = line.split(separator: " ", omittingEmptySubsequences: true)
            if words.count >= 2 { outcomes[String(words[0])] = String(words[1]) }
        }
        // What a failed test said (autopkgtest keeps each test's stdout and stderr).
        let said = declared.filter { outcomes[$0] != "PASS" }.map { name in
            ["stdout", "stderr"].map { stream in
                let text = (try? String(
                    contentsOf: output.appendingPathComponent("\(name)-\(stream)"), encoding: .utf8)) ?? ""
                return "\(name) \(stream):\n\(text.suffix(3_000))"
            }.joined(separator: "\n")
        }.joined(separator: "\n")
        XCTAssertEqual(
            outcomes, Dictionary(uniqueKeysWithValues: declared.map { ($0, "PASS") }),
            "autopkgtest's summary:\n\(summary)\n\(said)\nits log's end:\n\(log.suffix(3_000))")
        // 0: all passed (2 would be a skipped test, 4 a failed one, 8 none run, 12 and up its own trouble).
        XCTAssertEqual(result.status, 0, "autopkgtest's exit status\n\(result.errors.suffix(3_000))")
        XCTAssertEqual(
            try run("dpkg-query", ["--show", "progressd"]).status == 0, installedBefore, "the machine is as it was")
    }
}
