import Foundation
import ProgressTestSupport
import XCTest

/// The package's programs with cairo unreadable (an empty file bind-mounted over its real
/// file in a private mount namespace, helpers/missing-library.sh): drawing is refused with a
/// sentence naming the library, never a signal. progress-render says so and exits 69, its
/// service answers Renderer1.Error.DrawingUnavailable and keeps serving, and the daemon's
/// tray item shows a standard icon name instead of the ring while every task is served.
final class MissingLibraryTests: DebianPackageTestCase {
    static let library = "libcairo.so.2"
    static let watcher = repository
        .appendingPathComponent("Tests/ProgressTrayTests/helpers/status-notifier-watcher.py").path
    static let itemXML = repository.appendingPathComponent("Sources/ProgressTray/org.kde.StatusNotifierItem.xml").path

    /// `missing-library.sh LIBRARY CASE …` among the unpacked package's files: its "key: value" lines.
    func withoutLibrary(_ arguments: [String]) throws -> [String: [String]] {
        let helper = Self.helpers.appendingPathComponent("missing-library.sh").path
        let result = try asInstalled("unpacked", ["sh", helper, Self.library] + arguments)
        XCTAssertEqual(result.status, 0, result.output + result.errors)
        let values = keyedLines(result.output)
        XCTAssertTrue(values["hidden"]?.first?.contains(Self.library) == true, result.output + result.errors)
        return values
    }

    /// Was SIGABRT after "can not draw: … file too short".
    func testProgressRenderSaysWhichLibraryItCanNotLoad() throws {
        let values = try withoutLibrary(["render"])
        XCTAssertEqual(values["status"], ["69"], "EX_UNAVAILABLE, not a signal (134 is SIGABRT): \(values)")
        let stderr = values["stderr"]?.first ?? ""
        XCTAssertTrue(
            stderr.hasPrefix("progress-render: can not draw: libpangocairo-1.0.so.0 could not be loaded: "), stderr)
        XCTAssertTrue(stderr.contains("\(Self.library): file too short"), stderr)
        XCTAssertFalse(stderr.contains("Backtrac") || stderr.contains("crashed"), stderr)
        XCTAssertEqual(values["written"], ["no"])
    }

    /// Was a disconnection without a reply, and a service gone.
    func testTheRendererServiceAnswersDrawingUnavailableAndKeepsServing() throws {
        let values = try withoutLibrary(["service", Self.watcher, Self.itemXML])
        let renders = values["render"] ?? []
        XCTAssertEqual(renders.count, 2, "\(values)")
        for answer in renders {
            XCTAssertTrue(
                answer.contains("GDBus.Error:org.progressd.Renderer1.Error.DrawingUnavailable: can not draw: "), answer)
            XCTAssertTrue(answer.contains("\(Self.library): file too short"), answer)
        }
        XCTAssertEqual(values["introspect"], ["1"], "the service still answers other calls: \(values)")
        let invalid = values["invalid"]?.first ?? ""
        XCTAssertTrue(invalid.contains("org.progressd.Renderer1.Error.InvalidSpec"), invalid)
    }

    /// Was the daemon dying of SIGABRT when a host read the ring.
    func testTheTrayShowsAnIconNameAndTheDaemonServesEveryTask() throws {
        let values = try withoutLibrary(["tray", Self.watcher, Self.itemXML])
        XCTAssertEqual(values["item"], ["present"], "\(values)")
        XCTAssertEqual(values["icon-pixmap"], ["(<@a(iiay) []>,)"], "\(values)")
        XCTAssertEqual(values["icon-name"], ["(<'emblem-synchronizing'>,)", "(<'dialog-error'>,)"], "\(values)")
        XCTAssertEqual(values["attention-icon-name"], ["(<'emblem-synchronizing'>,)"], "\(values)")
        let pids = values["pid"] ?? []
        XCTAssertEqual(pids.count, 3, "\(values)")
        XCTAssertFalse(pids.first?.isEmpty ?? true, "\(values)")
        XCTAssertEqual(Set(pids).count, 1, "one daemon served it all: \(values)")
        XCTAssertEqual(values["list"]?.first?.split(separator: " "), ["backup=running", "copy=failed"], "\(values)")
    }
}
