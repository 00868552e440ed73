import Foundation
import ProgressctlProgram
import XCTest

/// Each parser against what its tool really printed (CapturedOutput), fed in small chunks
/// that split lines and escape sequences as a terminal's reads do.
final class OutputParserTests: XCTestCase {
    /// The fractions reported while following `output` of `command` (auto unless `choice`).
    func fractions(_ output: String, command: [String], choice: ParserChoice = .auto, chunk: Int = 7,
                   file: StaticString = #filePath, line: UInt = #line) throws -> [Double] {
        var follower = OutputFollower(choice: choice, command: command, streams: 1, keepsProgressSequences: false)
        let bytes = Array(output.utf8)
        var shown: [UInt8] = []
        var fractions: [Double] = []
        for start in stride(from: 0, to: bytes.count, by: chunk) {
            let result = follower.feed(bytes[start..<min(start + chunk, bytes.count)], stream: 0)
            shown += result.shown
            fractions += result.readings.compactMap(\.fraction)
        }
        XCTAssertEqual(shown, bytes, "plain output passes through unchanged", file: file, line: line)
        return fractions
    }

    /// Rising, with values strictly between 0 and 1, ending at `last`.
    func assertRising(_ fractions: [Double], last: Double? = 1, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(fractions, fractions.sorted(), file: file, line: line)
        XCTAssertGreaterThanOrEqual(
            fractions.filter { $0 > 0 && $0 < 1 }.count, 2, "\(fractions)", file: file, line: line)
        if let last { XCTAssertEqual(fractions.last ?? -1, last, accuracy: 0.001, file: file, line: line) }
    }

    func testRsyncProgress2() throws {
        let read = try fractions(
            CapturedOutput.rsyncProgress2, command: ["rsync", "-a", "--info=progress2", "src/", "dst/"])
        XCTAssertEqual(read, [0, 0.41, 0.60, 0.86, 1])
    }

    func testCurlBothMeters() throws {
        let bar = try fractions(CapturedOutput.curlBar, command: ["curl", "-#", "-O", "http://x/f"])
        assertRising(bar)
        XCTAssertEqual(bar.first ?? 0, 0.033, accuracy: 0.0001)
        // The first row (size 0: not known yet) says nothing.
        XCTAssertEqual(
            try fractions(CapturedOutput.curlMeter, command: ["curl", "-O", "http://x/f"]), [0.11, 0.45, 0.78, 1])
    }

    func testWgetDotsAndBar() throws {
        assertRising(try fractions(CapturedOutput.wgetDots, command: ["wget", "http://x/f"]))
        let bar = try fractions(CapturedOutput.wgetBar, command: ["wget", "--progress=bar:force", "http://x/f"])
        assertRising(bar)
        XCTAssertEqual(Array(bar.prefix(3)), [0, 0.08, 0.14])
    }

    func testGitPhasesAreWeightedSoTheCloneOnlyRises() throws {
        let read = try fractions(CapturedOutput.gitClone, command: ["git", "clone", "--progress", "repo", "clone"])
        assertRising(read, last: 0.85)
        // Counting restarts at 3 %, Receiving at 3 %: neither moves the whole back.
        XCTAssertLessThan(read.first ?? 1, 0.05)
    }

    func testDdReadsItsTotalFromTheCommandLine() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("dd-\(UUID().uuidString)")
        try Data(count: 3_000_000).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let read = try fractions(
            CapturedOutput.ddStatus, command: ["dd", "if=\(file.path)", "bs=4k", "status=progress"])
        XCTAssertEqual(read.map { ($0 * 1000).rounded() / 1000 }, [0.416, 0.766, 1])
        // Without a size there is no fraction; count= and bs= give one.
        XCTAssertEqual(try fractions(CapturedOutput.ddStatus, command: ["dd", "if=/dev/zero", "status=progress"]), [])
        XCTAssertEqual(DdParser(arguments: ["if=/dev/zero", "bs=1M", "count=3"]).total, 3_145_728)
        XCTAssertEqual(DdParser(arguments: ["if=/dev/zero", "bs=1kB", "count=2x5"]).total, 10_000)
    }

    func testPvNumbersOnlyForPv() throws {
        assertRising(try fractions(CapturedOutput.pvNumeric, command: ["pv", "-n", "file"]))
        // A bare number from any other command is nobody's percent.
        XCTAssertEqual(try fractions(CapturedOutput.pvNumeric, command: ["cat", "file"]), [])
    }

    func testFfmpegProgressAgainstTheDuration() throws {
        let read = try fractions(
            CapturedOutput.ffmpegProgress,
            command: ["ffmpeg", "-f", "lavfi", "-i", "testsrc", "-t", "2", "-progress", "pipe:1", "o.mp4"])
        assertRising(read)
        XCTAssertEqual(read[1], 0.24, accuracy: 0.001)
        // Its stats line, against the Duration it printed for its input.
        assertRising(
            try fractions(CapturedOutput.ffmpegStats, command: ["ffmpeg", "-re", "-i", "o.mp4", "o2.mp4"]), last: 0.96)
        XCTAssertEqual(FfmpegParser(arguments: ["-t", "00:01:30.5"]).duration, 90.5)
        XCTAssertEqual(FfmpegParser(arguments: ["-t", "1500ms"]).duration, 1.5)
    }

    func testAptStatusLinesArePhasesWithMessages() throws {
        var follower = OutputFollower(
            choice: .auto, command: ["apt-get", "-o", "APT::Status-Fd=1", "install", "pv"], streams: 1,
            keepsProgressSequences: false)
        let readings = follower.feed(Array(CapturedOutput.aptStatus.utf8), stream: 0).readings
        XCTAssertEqual(
            readings.first, ProgressReading(.fraction(0), phase: "dlstatus", message: "Retrieving file 1 of 1"))
        XCTAssertTrue(
            readings.contains(ProgressReading(.fraction(0.6), phase: "pmstatus", message: "Configuring pv (amd64)")))
        // dpkg's phase starts again from 0 after the download's 100 %.
        XCTAssertEqual(
            readings.map(\.phase).firstIndex(of: "pmstatus"), readings.firstIndex { $0.fraction == 1 }.map { $0 + 1 })
    }

    func testAptErrorsSayWhichPackageFailedAndWhy() throws {
        var follower = OutputFollower(
            choice: .auto, command: ["apt-get", "-o", "APT::Status-Fd=1", "install", "broken"], streams: 1,
            keepsProgressSequences: false)
        let errors = follower.feed(Array(CapturedOutput.aptErrors.utf8), stream: 0).readings
            .filter { $0.fraction == nil }
        XCTAssertEqual(errors.map(\.message), [
            "broken_1.0_all.deb: new broken package pre-installation script subprocess returned error exit status 1",
            "clash_1.0_all.deb: trying to overwrite '/usr/share/alpha/data', which is also in package alpha 1.0",
        ])
        XCTAssertEqual(errors.map(\.kind), [.error(nil), .error(nil)])
        // A package named with its architecture: the colon is the name's, not a field's.
        var parser = AptStatusParser()
        XCTAssertEqual(parser.read("pmerror:libfoo:amd64:60.0000:dependency problems - leaving unconfigured")?.message,
                       "libfoo:amd64: dependency problems - leaving unconfigured")
        XCTAssertEqual(parser.read("pmstatus:libfoo:amd64:60.0000:Configuring libfoo (amd64)")?.fraction, 0.6)
    }

    func testAptOnATerminalWithoutStatusFd() throws {
        // "Reading package lists... 100%" is not progress; several bars on one line give the last.
        XCTAssertEqual(
            try fractions(CapturedOutput.aptTerminal, command: ["sudo", "apt", "-y", "install", "pv"]),
            [0, 1, 0.2, 0.4, 0.8])
        XCTAssertEqual(try fractions("\r50% [2 pv 0 B/301 kB 0%]\r\n", command: ["apt-get", "install", "pv"]), [0.5])
    }

    func testGenericPercentAndCount() throws {
        XCTAssertEqual(
            try fractions("Building 12%\rBuilding 40 %\rstep 2.5% of 99.5%\n", command: ["make"]), [0.12, 0.4, 0.995])
        XCTAssertEqual(try fractions("[3/10] cc a.c\n[7/10] cc b.c\nat 12:30/45\n", command: ["ninja"]), [0.3, 0.7])
        // Forced: only that parser.
        XCTAssertEqual(try fractions("50%\n[3/10]\n", command: ["x"], choice: .named("count")), [0.3])
        XCTAssertEqual(try fractions("50%\n", command: ["x"], choice: .named("none")), [])
        XCTAssertEqual(
            try fractions(
                "copied 3 of 4\n", command: ["x"], choice: try ParserChoice(parse: nil, regex: "([0-9]+) of ([0-9]+)")),
            [0.75])
    }

    func testOnceAToolIsRecognisedOtherLinesDoNotCount() throws {
        // After rsync's first line, a "99%" in a file name is not progress.
        let output = "      32,768   5%    0.00kB/s    0:00:00  \nphoto-99%.jpg\n"
            + "   65,536  10%    1.00MB/s    0:00:01\n"
        XCTAssertEqual(try fractions(output, command: ["rsync"]), [0.05, 0.1])
    }

    func testBinaryOutputIsNotRead() throws {
        // gzip -c's output: random bytes that happen to hold "12%" and "3/9".
        let noise = "\u{00}\u{8F}x 12%\n\u{FF}3/9\n"
        XCTAssertEqual(try fractions(noise + "50%\n", command: ["gzip", "-c", "big"]), [])
        var follower = OutputFollower(choice: .auto, command: ["tar"], streams: 2, keepsProgressSequences: false)
        _ = follower.feed([0x8F, 0xFF, 0x0A], stream: 0)
        XCTAssertEqual(follower.feed(Array("40%\n".utf8), stream: 0).readings, [])
        XCTAssertEqual(
            follower.feed(Array("40%\n".utf8), stream: 1).readings.map(\.fraction), [0.4], "stderr is still read")
    }

    func testTheFractionNeverGoesBackWithinAPhase() {
        var guardian = FractionGuard()
        let readings = [0.2, 0.5, 0.3, 0.6].map { ProgressReading(.fraction($0), phase: "rsync") }
            + [ProgressReading(.fraction(0.1), phase: "pmstatus")]
        XCTAssertEqual(readings.compactMap { guardian.admit($0)?.fraction }, [0.2, 0.5, 0.6, 0.1])
    }

    func testParseNamesAndTheirErrors() throws {
        XCTAssertEqual(try ParserChoice(parse: nil, regex: nil), .auto)
        XCTAssertEqual(try ParserChoice(parse: "git", regex: nil), .named("git"))
        XCTAssertThrowsError(try ParserChoice(parse: "gti", regex: nil))
        XCTAssertThrowsError(try ParserChoice(parse: "git", regex: "(x)"))
        XCTAssertThrowsError(try ParserChoice(parse: nil, regex: "(")) {
            XCTAssertTrue("\($0)".contains("not a regular expression"))
        }
        XCTAssertThrowsError(try ParserChoice(parse: nil, regex: "x")) { XCTAssertTrue("\($0)".contains("one group")) }
    }
}
