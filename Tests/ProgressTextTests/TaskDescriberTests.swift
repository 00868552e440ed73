import Foundation
@testable import ProgressModel
@testable import ProgressCore
@testable import ProgressPolicies
import ProgressTestSupport
import ProgressText
import XCTest

/// The texts, with the catalogs `make catalogs` compiled.
final class TaskDescriberTests: XCTestCase {
    static let catalog = MessageCatalog(directory: BuildProducts.localeDirectory)
    let clock = ManualClock()
    lazy var store = TaskStore(clock: clock)

    func describer(_ locale: String) throws -> TaskDescriber {
        TaskDescriber(locale: try LocaleName(locale), catalog: Self.catalog)
    }

    var tasksMade = 0

    /// A new task each call.
    func task(_ pairs: [(String, OptionValue)], then: ((TaskName) throws -> Void)? = nil) throws -> ProgressTask {
        tasksMade += 1
        let name = try TaskName("job \(tasksMade)")
        _ = try store.start(
            name, with: TaskUpdate.parse(pairs.map { (key: $0.0, value: $0.1) }, for: .start), caller: ":1.1")
        try then?(name)
        return store.task(name)!
    }

    /// A task with a steady rate, so that it knows its time left.
    func movingTask(total: UInt64, unit: String, secondsLeft: Int) throws -> ProgressTask {
        let name = try TaskName("copy")
        _ = try store.start(name, with: TaskUpdate.parse(
            [("title", .string("Backup")), ("total", .uint64(total)), ("unit", .string(unit))], for: .start),
            caller: ":1.1")
        let perSecond = total / UInt64(10 + secondsLeft)
        for second in 1...10 {
            clock.advance(seconds: 1)
            _ = try store.update(
                name, with: TaskUpdate.parse([("completed", .uint64(UInt64(second) * perSecond))], for: .update))
        }
        return store.task(name)!
    }

    func testTheCatalogsWereBuilt() {
        XCTAssertEqual(Self.catalog.languages, ["ar", "de", "es", "fr", "ja", "ru", "zh"], "run `make catalogs`")
    }

    func testEnglishSentences() throws {
        let english = try describer("en_US")
        XCTAssertEqual(
            english.accessibleText(of: try task([("title", .string("Backup")), ("fraction", .double(0.42))])),
            "Backup: 42 percent")
        let backup: [(String, OptionValue)] = [("title", .string("Backup"))]
        XCTAssertEqual(
            english.accessibleText(of: try task(backup + [("indeterminate", .bool(true))])), "Backup: in progress")
        XCTAssertEqual(
            english.accessibleText(of: try task(backup, then: { _ = try self.store.fail($0, message: "disk full") })),
            "Backup failed: disk full")
        XCTAssertEqual(
            english.accessibleText(of: try task(backup, then: {
                _ = try self.store.update($0, with: TaskUpdate.parse([("state", .string("paused"))], for: .update))
            })),
            "Backup paused")
        XCTAssertEqual(english.accessibleText(of: try task([], then: { _ = try self.store.finish($0) })),
                       "job 5 finished", "without a title, the name")
    }

    func testDetailsWithUnitsAndTimeLeft() throws {
        let moving = try movingTask(total: 200, unit: "files", secondsLeft: 180)
        XCTAssertEqual(moving.secondsRemaining, 190, "190 files left at 1 a second")
        let english = try describer("en_US")
        XCTAssertEqual(english.detail(of: moving), "10 of 200 files, about 3 minutes left")
        XCTAssertEqual(english.accessibleText(of: moving), "Backup: 5 percent, about 3 minutes left")
        XCTAssertEqual(try describer("de_DE").detail(of: moving), "10 von 200 Dateien, noch etwa 3 Minuten")
        XCTAssertEqual(
            try describer("fr_FR").accessibleText(of: moving), "Backup\u{A0}: 5 pour cent, il reste environ 3 minutes")
        XCTAssertEqual(
            try describer("ru_RU").detail(of: moving),
            "10 из 200 файлов, осталось примерно 3 минуты")
        // CLDR 42 (Debian 12's ICU 72) writes Japanese units with a space: "3 分".
        XCTAssertEqual(try describer("ja_JP").detail(of: moving), "ファイル 10 / 200 個、残り約3 分")
        XCTAssertEqual(try describer("zh_CN").accessibleText(of: moving), "Backup：百分之 5，大约还剩 3分钟")
    }

    func testByteCountsComeFromICU() throws {
        let bytes = try task(
            [("total", .uint64(4_000_000_000)), ("completed", .uint64(1_234_567_890)), ("unit", .string("bytes"))])
        XCTAssertEqual(try describer("en_US").detail(of: bytes), "1.23 GB of 4 GB")
        XCTAssertEqual(try describer("fr_FR").detail(of: bytes), "1,23\u{202F}Go sur 4\u{202F}Go")
        let frames = try task([("total", .uint64(300)), ("completed", .uint64(12)), ("unit", .string("frames"))])
        XCTAssertEqual(try describer("en_US").detail(of: frames), "12 of 300 frames")
        let counted = try task(
            [("indeterminate", .bool(true)), ("completed", .uint64(1_500)), ("unit", .string("items"))])
        XCTAssertEqual(try describer("de_DE").detail(of: counted), "1.500 Elemente")
    }

    func testPluralFormsFollowEachLanguage() throws {
        let russian = try describer("ru_RU")
        let arabic = try describer("ar_EG")
        for (percent, word) in [
            (1, "процент"), (2, "процента"), (5, "процентов"),
            (11, "процентов"), (21, "процент"), (22, "процента"),
        ] {
            let task = try task([("title", .string("Копия")), ("fraction", .double(Double(percent) / 100))])
            XCTAssertEqual(
                russian.accessibleText(of: task), "Копия: \(percent) \(word)",
                "a left-to-right title is not isolated")
        }
        for (completed, expected) in [(3, "٣ ملفات"), (11, "١١ ملفًا"), (100, "١٠٠ ملف")] {
            let task = try task(
                [("indeterminate", .bool(true)), ("completed", .uint64(UInt64(completed))), ("unit", .string("files"))])
            XCTAssertEqual(arabic.detail(of: task), expected)
        }
    }

    func testArabicUsesArabicDigitsInSentences() throws {
        let task = try task([("title", .string("نسخ")), ("fraction", .double(0.42))])
        XCTAssertEqual(try describer("ar_EG").accessibleText(of: task), "\u{2068}نسخ\u{2069}: ٤٢ بالمئة")
    }

    func testDurationsAreRoundedAsPeopleSayThem() throws {
        let english = try describer("en_US")
        XCTAssertEqual(english.duration(seconds: 42), "45 seconds")
        XCTAssertEqual(english.duration(seconds: 3), "5 seconds")
        XCTAssertEqual(english.duration(seconds: 170), "3 minutes")
        XCTAssertEqual(english.duration(seconds: 7_290), "2 hours, 2 minutes")
        XCTAssertEqual(english.duration(seconds: 7_200), "2 hours", "a unit of zero is left out")
        XCTAssertEqual(english.duration(seconds: 3_599), "60 minutes")
        // CLDR 42's list of units and plural forms: French joins with "et", Arabic's dual
        // has no number.
        XCTAssertEqual(try describer("fr_FR").duration(seconds: 7_290), "2\u{A0}heures et 2 minutes")
        XCTAssertEqual(try describer("ar_EG").duration(seconds: 7_290), "ساعتان ودقيقتان")
        XCTAssertEqual(try describer("ar_EG").duration(seconds: 170), "٣ دقائق")
    }

    /// The unit is the largest in which the value stays below 1,000 once rounded to that
    /// unit's precision (none for kB, one digit for MB, two above), as file managers write sizes.
    func testByteCountsChangeUnitWhereTheRoundedValueReachesAThousand() throws {
        let english = try describer("en_US")
        func size(_ bytes: UInt64, in describer: TaskDescriber) throws -> String {
            describer.detail(of: try task([
                ("completed", .uint64(bytes)), ("total", .uint64(4_000_000_000_000)), ("unit", .string("bytes")),
            ]))
        }
        let expected: [(UInt64, String)] = [
            (0, "0 kB"), (1, "1 byte"), (998, "998 bytes"), (999, "1 kB"), (999_498, "999 kB"), (999_499, "1 MB"),
            (1_500_000, "1.5 MB"), (999_949_999, "1 GB"), (1_234_567_890, "1.23 GB"),
        ]
        for (bytes, shown) in expected {
            XCTAssertEqual(try size(bytes, in: english), "\(shown) of 4 TB", "\(bytes)")
        }
        XCTAssertEqual(try size(1_500_000, in: try describer("ar_EG")), "١٫٥ م.ب من ٤ تيرابايت")
    }

    /// Issue 12: counts past 2^63 read as negative, 2^64-1 bytes as "9,223.37 PB".
    func testCountsAreUnsignedAndBytesReachTwoToTheSixtyFour() throws {
        let english = try describer("en_US")
        let files = try task(
            [("total", .uint64(UInt64.max)), ("completed", .uint64(UInt64(Int64.max) + 5)), ("unit", .string("files"))])
        XCTAssertEqual(english.detail(of: files), "9,223,372,036,854,775,812 of 18,446,744,073,709,551,615 files")
        let bytes = try task(
            [("total", .uint64(UInt64.max)), ("completed", .uint64(1_500_000)), ("unit", .string("bytes"))])
        XCTAssertEqual(english.detail(of: bytes), "1.5 MB of 18.45 EB")
    }

    /// A right-to-left override in a title or message stays inside its own isolate.
    func testClientPiecesAreIsolatedInComposedTexts() throws {
        let english = try describer("en_US")
        let failed = try task(
            [("title", .string("\u{202E}kcab")), ("unit", .string("éclats")), ("total", .uint64(4))]) { name in
            _ = try self.store.fail(name, message: "disque \u{202E}plein")
        }
        XCTAssertEqual(
            english.accessibleText(of: failed),
            "\u{2068}\u{202E}kcab\u{202C}\u{2069} failed: \u{2068}disque \u{202E}plein\u{202C}\u{2069}")
        let counted = try task([("unit", .string("קבצים")), ("total", .uint64(4))])
        XCTAssertEqual(english.detail(of: counted), "0 of 4 \u{2068}קבצים\u{2069}")
    }

    func testSummariesOfManyTasksInEachLanguage() throws {
        let failed = try task([("title", .string("backup"))]) { name in
            _ = try self.store.fail(name, message: "disk full")
        }
        var summary = AnnouncementSummary()
        summary.moving = 12
        summary.overallPercent = 40
        summary.finished = 5
        summary.failed = [failed]
        XCTAssertEqual(
            try describer("en_US").summary(summary),
            "12 tasks, 40 percent overall, 5 tasks finished, 1 failed: backup: disk full")
        summary.moving = 0
        summary.failedLater = 2
        XCTAssertEqual(
            try describer("de_DE").summary(summary), "5 Aufgaben abgeschlossen, 3 fehlgeschlagen: backup: disk full")
        summary.finished = 1
        XCTAssertEqual(
            try describer("fr_FR").summary(summary), "1 tâche terminée, 3 en échec\u{A0}: backup\u{A0}: disk full")
    }

    /// Issue 22, case 4: the notification that sums up a burst, with plural forms.
    func testABurstIsSummedUpNamingTheFirstTitlesAndCountingTheRest() throws {
        var bursts = NotificationBursts()
        for index in 0..<12 {
            _ = bursts.add(failed: true, title: index == 1 ? "\u{202E}Sync" : "Job \(index)", appId: "a", now: 0)
        }
        _ = bursts.add(failed: false, title: "Copy", appId: "a", now: 0)
        let burst = try XCTUnwrap(bursts.burst("a"))
        let english = try describer("en_US").burst(burst)
        XCTAssertEqual(english.title, "12 tasks failed")
        XCTAssertEqual(
            english.body,
            "Job 0, \u{2068}\u{202E}Sync\u{202C}\u{2069}, Job 2, Job 3, Job 4 and 7 more, 1 task finished")
        let russian = try describer("ru_RU").burst(burst)
        XCTAssertEqual(russian.title, "12 задач завершились ошибкой")
        XCTAssertTrue(russian.body.contains(" и ещё 7"), russian.body)
        XCTAssertEqual(try describer("de_DE").burst(burst).title, "12 Aufgaben fehlgeschlagen")
        var finishes = NotificationBursts()
        _ = finishes.add(failed: false, title: "A", appId: "", now: 0)
        _ = finishes.add(failed: false, title: "B", appId: "", now: 0)
        let done = try describer("en_US").burst(try XCTUnwrap(finishes.burst("")))
        XCTAssertEqual(done.title, "2 tasks finished")
        XCTAssertEqual(done.body, "A, B")
    }
}
