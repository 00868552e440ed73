import Foundation
import ProgressModel
import ProgressTestSupport
import XCTest

/// Two builds of one tree give the same bytes: `make interop` builds make deb's copy again in
/// another folder (PROGRESSD_DEB_BUILDS names the two folders the .debs are in), so that a
/// path, a time or an order that leaks into the package makes the two differ. diffoscope says
/// where when they do.
final class DebianReproducibilityTests: DebianPackageTestCase {
    func debs(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".deb") }.sorted()
    }

    func testTwoBuildsInTwoFoldersGiveTheSameDebs() throws {
        let folders = try required("PROGRESSD_DEB_BUILDS").split(separator: " ").map(String.init)
        XCTAssertEqual(folders.count, 2, "two folders")
        guard folders.count == 2 else { return }
        let names = try debs(in: folders[0])
        let architecture = try run("dpkg", ["--print-architecture"]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let version = ProgressVersion.current
        XCTAssertEqual(
            names, ["progressd-dbgsym_\(version)_\(architecture).deb", "progressd_\(version)_\(architecture).deb"])
        XCTAssertEqual(try debs(in: folders[1]), names)
        for name in names {
            let first = "\(folders[0])/\(name)", second = "\(folders[1])/\(name)"
            guard FileManager.default.contentsEqual(atPath: first, andPath: second) else {
                // Without disassembly and hex and DWARF dumps of three 60 MB programs, diffoscope
                // takes seconds rather than most of an hour, and still names the differing
                // sections, notes and strings.
                let report = try run(
                    "timeout",
                    ["600", "diffoscope", "--text", "-", "--timeout", "120", "--max-report-size", "400000",
                     "--exclude-command", "^objdump", "--exclude-command", "^readelf.*--debug-dump",
                     "--exclude-command", "^readelf.*--hex-dump", first, second])
                XCTFail("\(name) differs between the two builds; diffoscope:\n"
                    + "\(report.output.prefix(40_000))\(report.errors.suffix(2_000))")
                continue
            }
        }
        XCTAssertTrue(
            FileManager.default.contentsEqual(
                atPath: deb, andPath: "\(folders[0])/progressd_\(version)_\(architecture).deb"),
            "PROGRESSD_DEB is the first build's")
    }

    /// Every file's time in the package is debian/changelog's date (SOURCE_DATE_EPOCH, which
    /// dpkg-buildpackage sets from it), and so is each manual page's date.
    func testTimesAreTheChangelogsDate() throws {
        let changelog = try run(
            "dpkg-parsechangelog",
            ["-l", Self.repository.appendingPathComponent("debian/changelog").path, "-S", "Timestamp"])
        let epoch = try XCTUnwrap(
            TimeInterval(changelog.output.trimmingCharacters(in: .whitespacesAndNewlines)), changelog.errors)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        let stamp = formatter.string(from: Date(timeIntervalSince1970: epoch))
        let listing = try run("env", ["TZ=UTC", "dpkg-deb", "--contents", deb])
        XCTAssertEqual(listing.status, 0, listing.errors)
        let lines = listing.output.split(separator: "\n")
        XCTAssertGreaterThan(lines.count, 30)
        XCTAssertEqual(lines.filter { !$0.contains(" \(stamp) ") }, [], "entries not dated \(stamp)")

        formatter.dateFormat = "yyyy-MM-dd"
        let day = formatter.string(from: Date(timeIntervalSince1970: epoch))
        let unpacked = scratch.appendingPathComponent("root")
        XCTAssertEqual(try run("dpkg-deb", ["-x", deb, unpacked.path]).status, 0)
        for page in ["progressd", "progressctl", "progress-render"] {
            let text = try run("zcat", [unpacked.appendingPathComponent("usr/share/man/man1/\(page).1.gz").path]).output
            let heading = text.split(separator: "\n").first { $0.hasPrefix(".TH ") } ?? ""
            XCTAssertTrue(heading.contains("\"\(day)\""), "\(page).1's date is debian/changelog's, \(day): \(heading)")
        }
    }
}
