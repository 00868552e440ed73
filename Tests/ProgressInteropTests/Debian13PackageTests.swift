import Foundation
import ProgressModel
import ProgressTestSupport
import XCTest

/// The package for Debian 13 (`make deb DEBIAN=13`, which make interop builds and names in
/// PROGRESSD_DEB13): installed by `apt install ./…` on a bare Debian 13, its dependencies
/// Debian 13's, lintian's and its DEP-8 tests' verdicts there, and two builds in two folders
/// giving the same bytes. Each runs in a throwaway copy of a Debian 13 root (Debian13System).
final class Debian13PackageTests: XCTestCase {
    var scratch: URL!
    var deb = ""
    let architecture =
        (try? CommandResult.run("/usr/bin/dpkg", ["--print-architecture"], environment: [:]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)) ?? ""
    var version: String { ProgressVersion.current + "+deb13" }

    override func setUpWithError() throws {
        deb = try Debian13System.required("PROGRESSD_DEB13")
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("progressd-deb13-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDown() {
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
    }

    func system(root: String? = nil, install: String?? = .none, update: Bool = false) throws -> Debian13System {
        try Debian13System(
            root: root, install: install, update: update, errors: scratch.appendingPathComponent("root.log"))
    }

    /// Done, as the issue says it: on a Debian 13 with nothing but apt and the essential
    /// packages, `apt install ./<the .deb>` installs progressd and what it needs from Debian 13's
    /// archive; its programs run, and the bus starts the daemon for the first progressctl.
    func testAptInstallsItOnABareDebian13() throws {
        let bare = try Debian13System.required("PROGRESSD_DEBIAN13_BARE_ROOT")
        XCTAssertNotEqual(
            try system(root: bare, install: .some(nil)).run(
                "/usr/bin/dpkg-query", ["-W", "libicu76"], environment: [:]
            ).status,
            0, "the bare root has no ICU before")
        let debian = try system(root: bare, update: true)
        let home = scratch.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let environment = ["HOME": home.path, "LANG": "C.UTF-8"]
        for program in ["progressd", "progressctl", "progress-render"] {
            let result = try debian.run("/usr/bin/\(program)", ["--version"], environment: environment)
            XCTAssertEqual(result.output, "\(program) \(ProgressVersion.current)\n", result.errors)
        }
        let installed = try debian.run(
            "/usr/bin/dpkg-query",
            [
                "-W", "-f", "${Package} ${Status}\n", "progressd", "libicu76",
                "libpng16-16t64",
            ], environment: [:])
        XCTAssertEqual(
            Set(installed.output.split(separator: "\n").map(String.init)),
            ["progressd install ok installed", "libicu76 install ok installed", "libpng16-16t64 install ok installed"],
            installed.errors)
        // A standard session bus (dbus-run-session) finds the package's activation file.
        let session = try debian.run(
            "/usr/bin/dbus-run-session",
            [
                "--", "/bin/sh", "-c",
                "progressctl start photos --title Photos && progressctl set photos 42% && progressctl list",
            ],
            environment: environment)
        XCTAssertEqual(session.status, 0, session.errors)
        XCTAssertEqual(
            session.output.split(separator: "\n").last?.split(separator: " "), ["photos", "running", "42%"],
            session.output)
    }

    /// The .deb's name and version say Debian 13, and it depends on Debian 13's libraries:
    /// ICU 76 and the rest from dpkg-shlibdeps in the root, and libpng16-16t64 (not Debian 12's
    /// libpng16-16), cairo and pango, which progressd opens when it first draws.
    func testItDependsOnDebian13sLibraries() throws {
        XCTAssertEqual(URL(fileURLWithPath: deb).lastPathComponent, "progressd_\(version)_\(architecture).deb")
        let fields = try CommandResult.run(
            "/usr/bin/dpkg-deb", ["--field", deb, "Version", "Depends"], environment: [:]
        ).output
        XCTAssertTrue(fields.contains("Version: \(version)\n"), fields)
        let depends = (fields.components(separatedBy: "Depends: ").last ?? "").split(separator: ",")
            .map {
                $0.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ").first.map(String.init) ?? ""
            }
        for library in [
            "libc6", "libglib2.0-0t64", "libicu76", "libcairo2", "libpango-1.0-0", "libpangocairo-1.0-0",
            "libpng16-16t64",
            "libstdc++6",
        ] {
            XCTAssertTrue(depends.contains(library), "Depends names \(library)\n" + fields)
        }
        for library in ["libicu72", "libpng16-16", "libglib2.0-0"] {
            XCTAssertFalse(depends.contains(library), "Depends names Debian 12's \(library)\n" + fields)
        }
        XCTAssertEqual(depends.count, Set(depends).count, "each package once\n" + fields)
        XCTAssertTrue(fields.contains("default-dbus-session-bus | dbus-session-bus"), fields)
        XCTAssertFalse(fields.lowercased().contains("swift"), fields)
    }

    /// Debian 13's GNOME Shell is 48: the package has the extension's form for 45 and later
    /// (debian/rules: GNOME_SHELL_API=45), the ES modules of gnome-shell/entry-45, whose files
    /// have the same names as the 43/44 form's.
    func testTheExtensionIsTheFormForGnomeShell45AndLater() throws {
        let folder = Debian13System.repository.appendingPathComponent("gnome-shell/entry-45")
        for file in ["metadata.json", "extension.js"] {
            let member = "./usr/share/gnome-shell/extensions/progressd@progressd.org/\(file)"
            let packaged = try CommandResult.run(
                "/bin/sh", ["-c", "dpkg-deb --fsys-tarfile \"$0\" | tar -xOf - \"$1\"", deb, member], environment: [:])
            XCTAssertEqual(packaged.status, 0, packaged.errors)
            XCTAssertEqual(
                packaged.output, try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8), file)
        }
    }

    /// Debian 13's lintian (inside the root) finds no error, and no warning that
    /// docs/installing.md does not explain.
    func testDebian13sLintianFindsNoError() throws {
        let copy = scratch.appendingPathComponent(URL(fileURLWithPath: deb).lastPathComponent)
        try FileManager.default.copyItem(atPath: deb, toPath: copy.path)
        let lintian = try system(install: .some(nil)).run(
            "/usr/bin/lintian", ["--fail-on", "error", copy.path], environment: [:])
        XCTAssertEqual(lintian.status, 0, lintian.output + lintian.errors)
        let tags = lintian.output.split(separator: "\n").filter { $0.hasPrefix("E: ") || $0.hasPrefix("W: ") }
        XCTAssertFalse(tags.contains { $0.hasPrefix("E: ") }, lintian.output)
        // A warning may stay only when docs/installing.md says why, as for Debian 12's.
        let installing = try String(
            contentsOf: Debian13System.repository.appendingPathComponent("docs/installing.md"), encoding: .utf8)
        for tag in tags {
            let name = tag.split(separator: " ").dropFirst(2).first.map(String.init) ?? String(tag)
            XCTAssertTrue(
                installing.contains("`\(name)`"), "lintian warns \(tag), and docs/installing.md does not say why")
        }
    }

    /// The package's DEP-8 tests, run by Debian 13's autopkgtest against the package it installs.
    func testEveryDep8TestPassesOnDebian13() throws {
        let source = scratch.appendingPathComponent("source")
        try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: Debian13System.repository.appendingPathComponent("debian"),
            to: source.appendingPathComponent("debian"))
        let copy = scratch.appendingPathComponent(URL(fileURLWithPath: deb).lastPathComponent)
        try FileManager.default.copyItem(atPath: deb, toPath: copy.path)
        let output = scratch.appendingPathComponent("autopkgtest")
        let result = try system(install: .some(nil)).run(
            "/usr/bin/autopkgtest", ["--output-dir", output.path, copy.path, source.path, "--", "null"],
            environment: [:])
        let summary = (try? String(contentsOf: output.appendingPathComponent("summary"), encoding: .utf8)) ?? ""
        let outcomes = summary.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        XCTAssertEqual(outcomes.count, 7, "seven tests: \(summary)")
        XCTAssertEqual(
            outcomes.filter { $0.count < 2 || $0[1] != "PASS" }.map { $0.joined(separator: " ") }, [],
            "autopkgtest's summary:\n\(summary)\n\(result.errors.suffix(3_000))")
        XCTAssertEqual(
            result.status, 0, "autopkgtest's exit status\n\(result.output.suffix(2_000))\(result.errors.suffix(3_000))")
    }

    /// make interop builds make deb DEBIAN=13's copy again in another folder: the same bytes.
    func testTwoBuildsInTwoFoldersGiveTheSameDebs() throws {
        let folders = try XCTUnwrap(ProcessInfo.processInfo.environment["PROGRESSD_DEB13_BUILDS"]).split(separator: " ")
            .map(String.init)
        XCTAssertEqual(folders.count, 2)
        guard folders.count == 2 else { return }
        let names = ["progressd-dbgsym_\(version)_\(architecture).deb", "progressd_\(version)_\(architecture).deb"]
        for name in names {
            let first = "\(folders[0])/\(name)"
            let second = "\(folders[1])/\(name)"
            guard FileManager.default.contentsEqual(atPath: first, andPath: second) else {
                let report = try CommandResult.run(
                    "/usr/bin/timeout",
                    [
                        "600", "diffoscope", "--text", "-", "--timeout", "120", "--max-report-size", "400000",
                        "--exclude-command", "^objdump", "--exclude-command", "^readelf.*--debug-dump",
                        "--exclude-command", "^readelf.*--hex-dump", first, second,
                    ], environment: ProcessInfo.processInfo.environment)
                XCTFail("\(name) differs between the two builds; diffoscope:\n\(report.output.prefix(40_000))")
                continue
            }
        }
        XCTAssertTrue(
            FileManager.default.contentsEqual(atPath: deb, andPath: "\(folders[0])/\(names[1])"),
            "PROGRESSD_DEB13 is the first build's")
    }
}
