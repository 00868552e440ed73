import ProgressModel
import ProgressKDE
import XCTest

/// The mapping from what a KDE job tells its view to the task's values.
final class JobViewStateTests: XCTestCase {
    func testBytesAreCountedBeforeFilesAndPercentIsIgnoredWithATotal() {
        var state = JobViewState(title: "org.kde.dolphin")
        XCTAssertTrue(state.apply("totalFiles", OptionValue(.unsignedInteger(3), signature: "t")))
        XCTAssertTrue(state.apply("totalBytes", OptionValue(.unsignedInteger(4_000), signature: "t")))
        XCTAssertTrue(state.apply("processedBytes", OptionValue(.unsignedInteger(1_000), signature: "t")))
        XCTAssertTrue(state.apply("percent", OptionValue(.unsignedInteger(25), signature: "u")))
        let update = state.taskUpdate(limits: Limits())
        XCTAssertEqual(update.unit, "bytes")
        XCTAssertEqual(update.total, 4_000)
        XCTAssertEqual(update.completed, 1_000)
        XCTAssertNil(update.fraction)
        XCTAssertEqual(update.title, "org.kde.dolphin")
    }

    func testPercentWithoutAmountsIsClampedTo100() {
        var state = JobViewState(title: "t")
        state.apply("percent", OptionValue(.unsignedInteger(250), signature: "u"))
        XCTAssertEqual(state.taskUpdate(limits: Limits()).fraction, 1.0)
        state.setPercent(40)
        XCTAssertEqual(state.taskUpdate(limits: Limits()).fraction, 0.4)
    }

    func testProcessedBeyondTotalStopsAtTotal() {
        var state = JobViewState(title: "t")
        state.setAmount(10, unit: "bytes", total: true)
        state.setAmount(12, unit: "bytes", total: false)
        XCTAssertEqual(state.taskUpdate(limits: Limits()).completed, 10)
        state.setAmount(5, unit: "dirs", total: true)
        state.setAmount(5, unit: "parsecs", total: true)
        XCTAssertEqual(state.totals["directories"], 5)
        XCTAssertNil(state.totals["parsecs"])
    }

    func testTitleMessageAndDescriptionFields() {
        var state = JobViewState(title: "kioclient")
        state.apply("title", .string("Copying"))
        state.apply("infoMessage", .string("Copying file"))
        state.apply("descriptionLabel1", .string("Source"))
        state.apply("descriptionValue1", .string("http://host/a"))
        state.apply("descriptionLabel2", .string("Destination"))
        state.apply("descriptionValue2", .string("file:///tmp/a"))
        let update = state.taskUpdate(limits: Limits())
        XCTAssertEqual(update.title, "Copying")
        XCTAssertEqual(update.message, "Copying file; Source: http://host/a; Destination: file:///tmp/a")
    }

    func testUnknownKeysAndWrongTypesAreIgnored() {
        var state = JobViewState(title: "t")
        let before = state
        XCTAssertFalse(state.apply("colour", .string("blue")))
        XCTAssertFalse(state.apply("percent", .string("50")))
        XCTAssertFalse(state.apply("title", .bool(true)))
        XCTAssertFalse(state.apply("processedBytes", OptionValue(.signedInteger(-4), signature: "x")))
        XCTAssertFalse(state.apply("descriptionLabel7", .string("x")))
        XCTAssertTrue(state.apply("speed", OptionValue(.unsignedInteger(9), signature: "t")))
        XCTAssertEqual(state, before)
    }

    func testSuspendedPausesAndResumes() {
        var state = JobViewState(title: "t")
        state.apply("suspended", .bool(true))
        XCTAssertEqual(state.taskUpdate(limits: Limits()).state, .paused)
        state.apply("suspended", .bool(false))
        XCTAssertEqual(state.taskUpdate(limits: Limits()).state, .running)
    }

    func testOutcomes() {
        XCTAssertEqual(JobViewState.outcome(code: 0, message: ""), .finished)
        XCTAssertEqual(JobViewState.outcome(code: 1, message: "killed"), .cancelled)
        XCTAssertEqual(JobViewState.outcome(code: 114, message: "Disk full"), .failed("Disk full"))
        XCTAssertEqual(JobViewState.outcome(code: 0, message: "Could not write"), .failed("Could not write"))
        XCTAssertEqual(JobViewState.outcome(code: 120, message: ""), .failed("the job failed (KIO error 120)"))
    }

    func testLongTextIsCutBetweenCharacters() {
        var limits = Limits()
        limits.maxTitleBytes = 5
        var state = JobViewState(title: "ééé")
        XCTAssertEqual(state.taskUpdate(limits: limits).title, "éé")
        state.title = "abcdefgh"
        XCTAssertEqual(state.taskUpdate(limits: limits).title, "abcde")
    }

    /// KIO's texts have no client to refuse them (issue 12): control characters become spaces.
    func testControlCharactersInAJobsTextsBecomeSpaces() {
        var state = JobViewState(title: "copy\u{1B}]0;owned\u{07}")
        XCTAssertTrue(state.apply("infoMessage", OptionValue(.string("line\nforged"), signature: "s")))
        let update = state.taskUpdate(limits: Limits())
        XCTAssertEqual(update.title, "copy ]0;owned ")
        XCTAssertEqual(update.message, "line forged")
    }
}
