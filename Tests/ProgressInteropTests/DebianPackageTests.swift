import Foundation
import ProgressModel
import ProgressTestSupport
import XCTest

/// The Debian package `make deb` builds (make interop builds it first and names it in
/// PROGRESSD_DEB): its control fields and files, lintian's verdict, and the programs at work
/// with the Swift toolchain hidden — unpacked over /usr, and installed by apt — each inside a
/// private mount namespace (helpers/as-installed.sh), so that this machine is left unchanged.
final class DebianPackageTests: DebianPackageTestCase {
    /// `helpers/use-package.sh` inside `as-installed.sh MODE`: its "key: value" lines.
    func useAsInstalled(_ mode: String) throws -> [String: [String]] {
        let result = try asInstalled(mode, ["sh", Self.helpers.appendingPathComponent("use-package.sh").path])
        XCTAssertEqual(result.status, 0, result.output + result.errors)
        XCTAssertFalse(result.errors.contains("/opt/swift") || result.errors.contains("libswift"), result.errors)
        return keyedLines(result.output)
    }

    func assertWorked(_ values: [String: [String]], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(
            values["version"],
            ["progressd", "progressctl", "progress-render"].map { "\($0) \(ProgressVersion.current)" },
            file: file, line: line)
        XCTAssertEqual(values["png"], ["PNG"], "progress-render wrote a PNG", file: file, line: line)
        XCTAssertEqual(values["man"], ["/usr/share/man/man1/progressctl.1.gz"], file: file, line: line)
        XCTAssertEqual(
            values["list"]?.first?.split(separator: " "), ["backup", "running", "42%"], file: file, line: line)
        // The catalog from /usr/share/locale, and ICU's data (German's words, Arabic's digits).
        XCTAssertEqual(values["de"], ["Sicherung: 42 Prozent"], file: file, line: line)
        XCTAssertEqual(values["ar"], ["\u{2068}٤٢٪\u{061C}\u{2069}"], file: file, line: line)
        XCTAssertEqual(
            values["daemon"], ["/usr/bin/progressd"], "the bus started the package's daemon", file: file, line: line)
        XCTAssertEqual(values["daemon-swift-mappings"], ["0"], "no Swift library is loaded", file: file, line: line)
    }

    func testControlFieldsAndFiles() throws {
        let fields = try run("dpkg-deb", ["--field", deb, "Package", "Version", "Architecture", "Depends"]).output
        XCTAssertTrue(fields.contains("Package: progressd\n"), fields)
        XCTAssertTrue(
            fields.contains("Version: \(ProgressVersion.current)\n"), "the version --version prints\n" + fields)
        let architecture = try run("dpkg", ["--print-architecture"]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertTrue(fields.contains("Architecture: \(architecture)\n"), fields)
        XCTAssertEqual(
            URL(fileURLWithPath: deb).lastPathComponent, "progressd_\(ProgressVersion.current)_\(architecture).deb")
        // The Debian libraries the programs load: dh_shlibdeps's, and debian/control's for the
        // drawing libraries, which are loaded on the first drawing (so unversioned). Nothing of Swift's.
        let depends = (fields.components(separatedBy: "Depends: ").last ?? "").split(separator: ",")
            .map {
                $0.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ").first.map(String.init) ?? ""
            }
        for library in [
            "libc6", "libglib2.0-0", "libcairo2", "libpango-1.0-0", "libpangocairo-1.0-0", "libpng16-16", "libstdc++6",
        ] {
            XCTAssertTrue(depends.contains(library), "Depends names \(library)\n" + fields)
        }
        XCTAssertTrue(fields.contains("default-dbus-session-bus | dbus-session-bus"), fields)
        XCTAssertFalse(fields.lowercased().contains("swift"), fields)
        // Issue 40's sizes: at most 10 MB to download and 25,000 KiB installed (the three
        // programs with Foundation's ICU each were 45 MB and 174,916 KiB).
        let installedSize = try run("dpkg-deb", ["--field", deb, "Installed-Size"]).output
        XCTAssertLessThanOrEqual(
            Int(installedSize.trimmingCharacters(in: .whitespacesAndNewlines)) ?? .max, 25_000, installedSize)
        let bytes = try FileManager.default.attributesOfItem(atPath: deb)[.size] as? Int ?? .max
        XCTAssertLessThanOrEqual(bytes, 10_000_000)

        let listing = try run("dpkg-deb", ["--contents", deb])
        XCTAssertEqual(listing.status, 0, listing.errors)
        let files = Set(listing.output.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("-") || line.hasPrefix("l"),
                  let path = line.split(separator: " ").last(where: { $0.hasPrefix("./") })
            else { return nil }
            return String(path.dropFirst())
        })
        var expected: Set<String> = [
            "/usr/share/dbus-1/interfaces/org.progressd.Progress1.xml",
            "/usr/share/dbus-1/interfaces/org.progressd.Renderer1.xml",
            "/usr/share/dbus-1/services/org.progressd.Progress1.service",
            "/usr/share/dbus-1/services/org.progressd.Renderer1.service",
            "/usr/lib/systemd/user/progressd.service", "/usr/lib/systemd/user/progress-render.service",
            "/usr/share/doc/progressd/copyright", "/usr/share/doc/progressd/changelog.gz",
        ]
        for program in ["progressd", "progressctl", "progress-render"] {
            expected.formUnion([
                "/usr/bin/\(program)", "/usr/share/man/man1/\(program).1.gz",
                "/usr/share/bash-completion/completions/\(program)",
                "/usr/share/zsh/vendor-completions/_\(program)", "/usr/share/fish/vendor_completions.d/\(program).fish",
            ])
        }
        let catalogs = try FileManager.default.contentsOfDirectory(
            atPath: Self.repository.appendingPathComponent("po").path)
            .filter { $0.hasSuffix(".po") }
        XCTAssertFalse(catalogs.isEmpty)
        for catalog in catalogs {
            expected.insert("/usr/share/locale/\(catalog.dropLast(3))/LC_MESSAGES/progressd.mo")
        }
        // The GNOME Shell extension, every file of its folder.
        let extensionFolder = Self.repository.appendingPathComponent(".build/gnome-shell-43/progressd@progressd.org")
        let extensionFiles = try FileManager.default.contentsOfDirectory(atPath: extensionFolder.path)
        XCTAssertTrue(
            extensionFiles.contains("metadata.json") && extensionFiles.contains("extension.js"), "\(extensionFiles)")
        for file in extensionFiles {
            expected.insert("/usr/share/gnome-shell/extensions/progressd@progressd.org/\(file)")
        }
        XCTAssertEqual(files.subtracting(expected).sorted(), [], "files the package should not have")
        XCTAssertEqual(expected.subtracting(files).sorted(), [], "files the package lacks")
    }

    /// Debian 12's GNOME Shell is 43: the package has the extension's 43/44 form (the folder
    /// `make extension-forms` writes into .build/gnome-shell-43 from gnome-shell/shared),
    /// not the ES modules of 45 and later, whose files have the same names.
    func testTheExtensionIsTheFormForGnomeShell43() throws {
        let folder = Self.repository.appendingPathComponent(".build/gnome-shell-43/progressd@progressd.org")
        for file in ["metadata.json", "extension.js", "indicator.js"] {
            let member = "./usr/share/gnome-shell/extensions/progressd@progressd.org/\(file)"
            let packaged = try run("/bin/sh", ["-c", "dpkg-deb --fsys-tarfile \"$0\" | tar -xOf - \"$1\"", deb, member])
            XCTAssertEqual(packaged.status, 0, packaged.errors)
            XCTAssertEqual(
                packaged.output, try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8), file)
        }
    }

    /// No errors; a warning may stay only when docs/installing.md says why.
    func testLintianFindsNoErrorsAndOnlyWarningsTheInstallingPageExplains() throws {
        let result = try run("lintian", ["--fail-on", "error", deb])
        XCTAssertEqual(result.status, 0, result.output + result.errors)
        let tags = result.output.split(separator: "\n").filter { $0.hasPrefix("E: ") || $0.hasPrefix("W: ") }
        XCTAssertFalse(tags.contains { $0.hasPrefix("E: ") }, result.output)
        let installing = try String(
            contentsOf: Self.repository.appendingPathComponent("docs/installing.md"), encoding: .utf8)
        for tag in tags {
            let name = tag.split(separator: " ").dropFirst(2).first.map(String.init) ?? String(tag)
            XCTAssertTrue(
                installing.contains("`\(name)`"), "lintian warns \(tag), and docs/installing.md does not say why")
        }
    }

    /// Unpacked over /usr: the bus activates the daemon from the package's own service file,
    /// which names /usr/bin/progressd, the package's program there.
    func testTheUnpackedProgramsWorkWithoutTheToolchain() throws {
        let values = try useAsInstalled("unpacked")
        assertWorked(values)
        for program in ["progressd", "progressctl", "progress-render"] {
            let needed = try run(
                "readelf", ["--dynamic", scratch.appendingPathComponent("root/usr/bin/\(program)").path]).output
            XCTAssertTrue(needed.contains("libglib-2.0.so.0") || needed.contains("libgio-2.0.so.0"), needed)
            XCTAssertFalse(
                needed.contains("swift") || needed.contains("Foundation") || needed.contains("RUNPATH"), needed)
        }
    }

    /// One file under three names, which loads cairo, pango and libpng only to draw: a
    /// `progressctl` call never loads them (measured: 3 ms of every start), `progress-render`
    /// does, and draws.
    func testOneProgramThatLoadsTheDrawingLibrariesOnlyToDraw() throws {
        let root = scratch.appendingPathComponent("root")
        XCTAssertEqual(try run("dpkg-deb", ["-x", deb, root.path]).status, 0)
        let bin = root.appendingPathComponent("usr/bin")
        for link in ["progressctl", "progress-render"] {
            XCTAssertEqual(
                try FileManager.default.destinationOfSymbolicLink(atPath: bin.appendingPathComponent(link).path),
                "progressd")
        }
        let needed = try run("readelf", ["--dynamic", bin.appendingPathComponent("progressd").path]).output
        for library in ["libcairo", "libpango", "libpng", "libharfbuzz"] {
            XCTAssertFalse(needed.contains(library), "\(library) is needed at start: \(needed)")
        }
        func loaded(_ program: String, _ arguments: [String]) throws -> (status: Int32, libraries: String) {
            let result = try CommandResult.run(
                "/usr/bin/env", ["LD_DEBUG=files", bin.appendingPathComponent(program).path] + arguments,
                environment: ["PATH": "/usr/bin:/bin"])
            return (result.status, result.errors)
        }
        let version = try loaded("progressctl", ["--version"])
        XCTAssertEqual(version.status, 0)
        XCTAssertTrue(
            version.libraries.contains("libglib-2.0.so.0"),
            "LD_DEBUG shows what is loaded: \(version.libraries.prefix(400))")
        XCTAssertFalse(version.libraries.contains("libcairo.so.2"), "progressctl loaded cairo")
        let image = scratch.appendingPathComponent("bar.png")
        let drawn = try loaded("progress-render", ["--fraction", "0.5", "-o", image.path])
        XCTAssertEqual(drawn.status, 0)
        XCTAssertTrue(drawn.libraries.contains("libcairo.so.2"), "drawing opened cairo")
        XCTAssertTrue(FileManager.default.fileExists(atPath: image.path))
    }

    /// `apt install ./progressd_….deb` (into overlays that vanish with the namespace); then a
    /// standard session bus activates the daemon from /usr/share/dbus-1/services.
    func testAptInstallsItAndAStandardSessionBusActivatesIt() throws {
        let installedBefore = try run("dpkg-query", ["--show", "progressd"]).status == 0
        let values = try useAsInstalled("apt")
        assertWorked(values)
        XCTAssertEqual(
            try run("dpkg-query", ["--show", "progressd"]).status == 0, installedBefore, "the machine is as it was")
    }
}
