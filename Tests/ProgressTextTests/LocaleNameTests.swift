import ProgressModel
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
            LocaleName.fromEnvironment(["LANG": "de_DE", "LC_MESSAGES": "fr_FR", "LC_NUMERIC": "tr_TR"]).identifier,
            "tr_TR")
        XCTAssertEqual(
            LocaleName.fromEnvironment(["LANG": "de_DE", "LC_NUMERIC": "tr_TR", "LC_ALL": "ar_EG"]).identifier, "ar_EG")
        XCTAssertEqual(LocaleName.fromEnvironment(["LC_ALL": "", "LANG": "ja_JP.UTF-8"]).identifier, "ja_JP")
        XCTAssertEqual(LocaleName.fromEnvironment(["LANG": "C.UTF-8"]), .english)
        XCTAssertEqual(LocaleName.fromEnvironment(["LANG": "garbage!"]), .english)
    }
}

final class PercentLabelsTests: XCTestCase {
    let describers = DescriberCache(catalog: MessageCatalog())

    func label(_ locale: String, _ percent: Int = 42) throws -> String {
        try describers.describer(forClientLocale: locale).label(wholePercent: percent)
    }

    /// ICU's own forms, with their no-break spaces and marks, for 19 locales.
    func testEachLocaleUsesItsOwnPercentForm() throws {
        let expected: [(String, String)] = [
            ("en_US", "42%"), ("fr_FR", "42\u{A0}%"), ("de_DE", "42\u{A0}%"), ("tr_TR", "%42"),
            ("ar_EG", "\u{664}\u{662}\u{66A}\u{61C}"), ("ar_SA", "\u{664}\u{662}\u{66A}\u{61C}"),
            ("fa_IR", "\u{6F4}\u{6F2}\u{66A}"), ("hi_IN", "42%"), ("he_IL", "42%"), ("ja_JP", "42%"),
            ("zh_CN", "42%"), ("ru_RU", "42\u{A0}%"), ("es_ES", "42\u{A0}%"), ("sv_SE", "42\u{A0}%"),
            ("pl_PL", "42%"), ("ko_KR", "42%"), ("de_CH", "42%"), ("bn_BD", "\u{9EA}\u{9E8}%"),
            ("mr_IN", "\u{96A}\u{968}%"),
        ]
        for (locale, label) in expected {
            XCTAssertEqual(try self.label(locale), label, locale)
        }
        XCTAssertEqual(try label("C", 100), "100%")
    }

    /// Issue 23: bn_BD's labels came out in Latin digits, Foundation's bundled data departing
    /// from CLDR. Expected: CLDR 42's defaultNumberingSystem (common/main/LANG.xml and
    /// LANG_REGION.xml), as Debian 12's ICU 72 reports it through unumsys_open.
    func testDigitsAreCLDRsDefaultNumberingSystem() throws {
        let expected: [(String, String)] = [
            ("en_US", "latn"), ("fr_FR", "latn"), ("de_DE", "latn"), ("tr_TR", "latn"), ("ar_EG", "arab"),
            ("ar_SA", "arab"), ("fa_IR", "arabext"), ("hi_IN", "latn"), ("he_IL", "latn"), ("ja_JP", "latn"),
            ("zh_CN", "latn"), ("ru_RU", "latn"), ("es_ES", "latn"), ("sv_SE", "latn"), ("pl_PL", "latn"),
            ("ko_KR", "latn"), ("de_CH", "latn"), ("bn_BD", "beng"), ("bn_IN", "beng"), ("as_IN", "beng"),
            ("mr_IN", "deva"), ("ne_NP", "deva"), ("my_MM", "mymr"), ("ur_PK", "latn"), ("ur_IN", "arabext"),
            ("ps_AF", "arabext"), ("th_TH", "latn"), ("ar_MA", "latn"), ("ar_IQ", "arab"), ("dz_BT", "tibt"),
        ]
        let fours = ["latn": "4", "arab": "\u{664}", "arabext": "\u{6F4}", "beng": "\u{9EA}", "deva": "\u{96A}",
                     "mymr": "\u{1044}", "tibt": "\u{F24}"]
        XCTAssertEqual(expected.count, 30)
        for (locale, system) in expected {
            XCTAssertEqual(try LocaleName(locale).numberingSystem, system, locale)
            let label = try label(locale)
            XCTAssertEqual(fours.filter { label.contains($0.value) }.map(\.key), [system], "\(locale): \(label)")
        }
    }

    func testTheCacheKeepsOneDescriberPerLocale() throws {
        let french = try describers.describer(forClientLocale: "fr_FR.UTF-8")
        XCTAssertTrue(french === (try describers.describer(forClientLocale: "fr-FR")))
        XCTAssertThrowsError(try describers.describer(forClientLocale: "zz"))
    }
}
