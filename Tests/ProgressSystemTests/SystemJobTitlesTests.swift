@testable import ProgressSystem
import ProgressTestSupport
import ProgressText
import XCTest

/// The services' enums as titles and outcomes, from pk-enum.c, fwupd-enums.c, UDisks2's and
/// import1's documented values.
final class SystemJobTitlesTests: XCTestCase {
    func testPackageKitRolesAndStatusesMakeTitles() {
        XCTAssertEqual(PackageKitTexts.title(role: 13, status: 7), MessageCatalog.refreshingSources)
        XCTAssertEqual(PackageKitTexts.title(role: 22, status: 9), MessageCatalog.installingUpdates)
        XCTAssertEqual(
            PackageKitTexts.title(role: 22, status: 8), MessageCatalog.downloadingPackages, "an update downloading")
        XCTAssertEqual(PackageKitTexts.title(role: 11, status: 9), MessageCatalog.installingPackages)
        XCTAssertEqual(PackageKitTexts.title(role: 14, status: 6), MessageCatalog.removingPackages)
        for query: UInt32 in [0, 1, 2, 3, 9, 17, 18, 21, 23] {
            XCTAssertNil(PackageKitTexts.title(role: query, status: 3), "role \(query) is a query, not a task")
        }
        XCTAssertEqual(PackageKitTexts.waiting(status: 31), MessageCatalog.waitingForAuthentication)
        XCTAssertEqual(PackageKitTexts.package("scribus;1.3.4-1.fc8;i386;fedora"), "scribus 1.3.4-1.fc8")
        XCTAssertEqual(PackageKitTexts.package(""), "")
    }

    func testPackageKitExitCodesMakeOutcomes() {
        XCTAssertEqual(PackageKitInput.outcome(exit: 1, details: nil), .finished)
        XCTAssertEqual(PackageKitInput.outcome(exit: 3, details: nil), .cancelled)
        XCTAssertEqual(PackageKitInput.outcome(exit: 9, details: nil), .cancelled)
        XCTAssertEqual(PackageKitInput.outcome(exit: 2, details: "no network"), .failed("no network"))
        XCTAssertEqual(PackageKitInput.outcome(exit: 6, details: nil), .failed("PackageKit: killed"))
    }

    func testFwupdStatusesSayWhetherAnUpdateRuns() {
        XCTAssertFalse(FwupdTexts.isUpdating(0))
        XCTAssertFalse(FwupdTexts.isUpdating(1))
        XCTAssertFalse(FwupdTexts.isUpdating(2), "loading is the daemon starting")
        XCTAssertTrue(FwupdTexts.isUpdating(5))
        XCTAssertEqual(FwupdTexts.message(status: 5), MessageCatalog.writingFirmware)
        XCTAssertEqual(FwupdTexts.message(status: 14), MessageCatalog.waitingForUser)
    }

    func testDiskAndImageJobsMakeTitles() {
        XCTAssertEqual(UDisksTexts.title(operation: "format-erase"), MessageCatalog.erasingDrive)
        XCTAssertEqual(UDisksTexts.title(operation: "ata-smart-selftest"), MessageCatalog.testingDrive)
        XCTAssertEqual(UDisksTexts.title(operation: "filesystem-mount"), MessageCatalog.diskOperation)
        XCTAssertEqual(ImportdTexts.title(type: "pull-raw"), MessageCatalog.downloadingImage)
        XCTAssertEqual(ImportdTexts.title(type: "export-tar"), MessageCatalog.exportingImage)
        XCTAssertEqual(ImportdInput.outcome("canceled"), .cancelled)
        XCTAssertEqual(ImportdInput.outcome("failed"), .failed("the transfer failed"))
    }

    func testTitlesAreInTheDaemonsLocale() throws {
        let catalog = MessageCatalog(directory: BuildProducts.localeDirectory)
        XCTAssertEqual(
            catalog.text(
                MessageCatalog.updatingFirmwareOf, language: catalog.language(for: try LocaleName("de_DE")),
                filling: ["device": "Webcam"]),
            "Firmware von Webcam wird aktualisiert")
    }

    func testAFrontEndIsKnownByItsExecutable() {
        XCTAssertEqual(FrontEnd.executableName(pid: UInt64(getpid())), "progressdPackageTests.xctest")
        XCTAssertNil(FrontEnd.executableName(pid: UInt64(Int32.max)), "no such process")
        XCTAssertEqual(FrontEnd.appIds["gnome-software"], "org.gnome.Software")
        XCTAssertNil(FrontEnd.appIds["pkcon"], "a command-line client is no app")
    }
}
