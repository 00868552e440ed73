import ProgressCore
import ProgressText
import XCTest

final class LocaleNameTests: XCTestCase {
    func testPOSIXAndBCP47Forms() throws {
        XCTAssertEqual(try LocaleName("fr_FR.UTF-8").identifier, "fr_FR")
        XCTAssertEqual(try LocaleName("fr-FR").identifier, "fr_FR")
        XCTAssertEqual(try LocaleName("de").identifier, "de")
        XCTAssertEqual(try LocaleName("sr_RS@latin").identifier, "sr_Latn_RS")
        XCTAssertEqual(try LocaleName("zh-Hans-CN").identifier, "zh_Hans_CN")
        XCTAssertEqual(try LocaleName("es-419").identifier, "es_419")
        XCTAssertEqual(try LocaleName("de_DE@euro").identifier, "de_DE")
        XCTAssertEqual(try LocaleName("C"), .english)
        XCTAssertEqual(try LocaleName("POSIX"), .english)
        XCTAssertEqual(try LocaleName("C.UTF-8"), .english)
    }

    func testInvalidLocalesAreErrorsNotFallbacks() {
        for text in ["xx_YY", "fr_FRANCE", "f", "12", "fr_FR.", "fr__FR", "en-US-x", "français"] {
            XCTAssertThrowsError(try LocaleName(text), text) { error in
                XCTAssertEqual((error as? ProgressError)?.name, "InvalidValue")
                XCTAssertTrue((error as? ProgressError)?.message.contains("'\(text)'") == true, "\(error)")
            }
        }
    }

    func testTheEnvironmentIsReadInTheCLibrarysOrder() {
        XCTAssertEqual(LocaleName.fromEnvironment([:]), .english)
        XCTAssertEqual(LocaleName.fromEnvironment(["LANG": "de_DE.UTF-8"]).identifier, "de_DE")
        XCTAssertEqual(LocaleName.fromEnvironment(["LANG": "de_DE.UTF-8", "LC_MESSAGES": "fr_FR"]).identifier, "fr_FR")
        XCTAssertEqual(
            LocaleName.fromEnvironment(["LANG": "de_DE", "LC_MESSAGES": "fr_FR", "LC_NUMERIC": "tr_TR"]).identifier, "tr_TR")
        XCTAssertEqual(
            LocaleName.fromEnvironment(["LANG": "de_DE", "LC_NUMERIC": "tr_TR", "LC_ALL": "ar_EG"]).identifier, "ar_EG")
        XCTAssertEqual(LocaleName.fromEnvironment(["LC_ALL": "", "LANG": "ja_JP.UTF-8"]).identifier, "ja_JP")
        XCTAssertEqual(LocaleName.fromEnvironment(["LANG": "C.UTF-8"]), .english)
        XCTAssertEqual(LocaleName.fromEnvironment(["LANG": "garbage!"]), .english)
    }
}

final class PercentLabelsTests: XCTestCase {
    func label(_ locale: String, _ percent: Int) throws -> String {
        PercentLabels(locale: try LocaleName(locale)).label(wholePercent: percent)
    }

    func testEachLocaleUsesItsOwnPercentForm() throws {
        XCTAssertEqual(try label("en_US", 42), "42%")
        XCTAssertEqual(try label("fr_FR", 42), "42\u{A0}%")
        XCTAssertEqual(try label("de_DE", 42), "42\u{A0}%")
        XCTAssertEqual(try label("tr_TR", 42), "%42")
        XCTAssertEqual(try label("ar_EG", 42), "\u{664}\u{662}\u{66A}\u{61C}")
        XCTAssertEqual(try label("fa_IR", 42), "\u{6F4}\u{6F2}\u{66A}")
        XCTAssertEqual(try label("ja_JP", 42), "42%")
        XCTAssertEqual(try label("C", 100), "100%")
    }

    func testTheCacheKeepsOneTablePerLocaleAndStaysBounded() throws {
        let cache = PercentLabelCache()
        let french = try cache.labels(forClientLocale: "fr_FR.UTF-8")
        XCTAssertTrue(french === (try cache.labels(forClientLocale: "fr-FR")))
        XCTAssertThrowsError(try cache.labels(forClientLocale: "zz"))
    }
}
