@testable import ProgressText
import XCTest

/// A catalog sentence's `{key}`s filled in: scanned as bytes, so texts around and inside
/// the values that are not ASCII must come through whole.
final class TemplateFillingTests: XCTestCase {
    func testEveryKeyIsReplacedAndTheRestKept() {
        XCTAssertEqual("{title}: {percent} percent".filling(["title": "Backup", "percent": "42"]), "Backup: 42 percent")
        XCTAssertEqual("about {duration} left".filling(["duration": "3 minutes"]), "about 3 minutes left")
        XCTAssertEqual("{first}{second}".filling(["first": "a", "second": "b"]), "ab")
        XCTAssertEqual("no keys".filling(["title": "x"]), "no keys")
        XCTAssertEqual("".filling([:]), "")
    }

    func testAnUnknownKeyStaysWithItsBraces() {
        XCTAssertEqual("{title} and {other}".filling(["title": "Sync"]), "Sync and {other}")
        XCTAssertEqual("{other} then {title}".filling(["title": "Sync"]), "{other} then Sync")
    }

    func testAnUnclosedBraceEndsTheFilling() {
        XCTAssertEqual("{title} {unclosed".filling(["title": "Sync"]), "Sync {unclosed")
        XCTAssertEqual("{a{title}".filling(["title": "Sync", "a{title": "inner"]), "inner")
    }

    func testTextsThatAreNotASCII() {
        XCTAssertEqual("{title} : {percent} pour cent — é".filling(["title": "Sauvegarde ✓", "percent": "٤٢"]),
                       "Sauvegarde ✓ : ٤٢ pour cent — é")
        XCTAssertEqual("«{title}»".filling(["title": "\u{2068}שלום\u{2069}"]), "«\u{2068}שלום\u{2069}»")
        // A combining mark after a brace does not hide the brace from the scan.
        XCTAssertEqual("{title}\u{301}".filling(["title": "e"]), "e\u{301}")
    }
}
