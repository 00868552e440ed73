import Foundation
import ProgressBus
import ProgressClient
import ProgressModel
import ProgressTestSupport
import XCTest

/// Debian's apt-get installing and removing packages built here (helpers/apt-repository.sh)
/// under `progressctl run`, in a mount namespace where /etc/apt, /var/lib/dpkg, apt's lists
/// and cache, /var/log and /srv are scratch directories (helpers/apt-sandbox.sh): the
/// machine's own dpkg database must be byte for byte the same afterwards. The test holds the
/// machine's dpkg locks meanwhile, as apt does, so that no other install changes it (one
/// waits, as apt-get with DPkg::Lock::Timeout does), and so that an apt that reached for
/// the machine's database would fail at its lock.
final class AptInteropTests: InteropTestCase {
    var apt: URL { scratch.appendingPathComponent("apt") }
    var progressctl: String { BuildProducts.url(of: "progressctl").path }
    static let machineStatus = URL(fileURLWithPath: "/var/lib/dpkg/status")
    private var machineStatusBefore: Data?
    private var machineLocks: [Int32] = []

    /// What the task showed while it ran: each change of its fraction or message.
    struct Seen {
        var readings: [(fraction: Double, message: String)] = []
        var status: Int32?
        var output = ""

        /// The fractions shown with a message of the phase `prefix` starts, strictly between 0 and 1.
        func fractions(_ prefixes: [String]) -> [Double] {
            readings.filter { reading in prefixes.contains { reading.message.hasPrefix($0) } }.map(\.fraction)
                .filter { $0 > 0 && $0 < 1 }
        }

        func lastIndex(_ prefixes: [String]) -> Int? {
            readings.lastIndex { reading in prefixes.contains { reading.message.hasPrefix($0) } }
        }
        func firstIndex(_ prefixes: [String]) -> Int? {
            readings.firstIndex { reading in prefixes.contains { reading.message.hasPrefix($0) } }
        }
    }

    static let download = ["Retrieving file"]
    static let dpkg = ["Preparing", "Unpacking", "Installing", "Configuring", "Installed", "Removing", "Running dpkg"]

    override func setUpWithError() throws {
        try super.setUpWithError()
        for name in ["lock-frontend", "lock"] {
            let descriptor = open("/var/lib/dpkg/" + name, O_RDWR | O_CLOEXEC)
            guard descriptor >= 0 else { throw XCTSkip("the machine's dpkg lock can not be opened") }
            machineLocks.append(descriptor)
            let locked = BusConnection.pump(seconds: 600) { lockf(descriptor, F_TLOCK, 0) == 0 }
            XCTAssertTrue(locked, "the machine's dpkg \(name) stayed taken")
        }
        machineStatusBefore = try Data(contentsOf: Self.machineStatus)
        let made = try run("/bin/sh", [Self.helperDirectory.appendingPathComponent("apt-repository.sh").path, apt.path])
        XCTAssertEqual(made.status, 0, made.errors)
    }

    override func tearDown() {
        for helper in helpers { helper.stop() }
        if let machineStatusBefore {
            XCTAssertEqual(
                try? Data(contentsOf: Self.machineStatus), machineStatusBefore,
                "the machine's /var/lib/dpkg/status changed")
        }
        // Closing releases the lock.
        for descriptor in machineLocks { close(descriptor) }
        machineLocks = []
        super.tearDown()
    }

    /// Runs `arguments` in the sandbox, with the built progressctl first on PATH.
    func sandboxed(_ arguments: [String], errorName: String) throws -> HelperProcess {
        var environment = self.environment
        environment["PATH"] = URL(fileURLWithPath: progressctl).deletingLastPathComponent().path
            + ":/usr/sbin:/usr/bin:/sbin:/bin"
        let helper = try HelperProcess(
            "/bin/sh", [Self.helperDirectory.appendingPathComponent("apt-sandbox.sh").path, apt.path] + arguments,
            environment: environment, errorFile: scratch.appendingPathComponent("\(errorName).stderr"))
        helpers.append(helper)
        return helper
    }

    /// Runs apt-get (not followed) in the sandbox, to set the stage.
    func aptGet(_ arguments: [String]) throws {
        let helper = try sandboxed(["apt-get", "-q", "-y"] + arguments, errorName: "apt-get")
        let status = helper.waitForExit(seconds: 120)
        XCTAssertEqual(status, 0, "apt-get \(arguments): \(helper.output)\n\(errors("apt-get"))")
    }

    func errors(_ name: String) -> String {
        (try? String(contentsOf: scratch.appendingPathComponent("\(name).stderr"), encoding: .utf8)) ?? ""
    }

    /// Runs `script` (sh) in the sandbox and polls the task `name` until it ends.
    func follow(_ name: String, _ script: String) throws -> Seen {
        let helper = try sandboxed(["/bin/sh", "-c", script], errorName: name)
        let path = try BusNames.taskPath(TaskName(name))
        var seen = Seen()
        let ended = BusConnection.pump(seconds: 120) {
            // One GetAll a poll, so that the fraction and the message belong together.
            let task = (try? client.call(BusNames.busName, path, BusNames.propertiesInterface, "GetAll",
                                         [.string(BusNames.taskInterface)]))?.first?.dictionary ?? [:]
            if task["State"]?.string == "running", task["Indeterminate"]?.bool == false,
               let fraction = task["Fraction"]?.double {
                let message = task["Message"]?.string ?? ""
                if seen.readings.last.map({ $0.fraction != fraction || $0.message != message }) ?? true {
                    seen.readings.append((fraction, message))
                }
            }
            return !helper.isRunning
        }
        XCTAssertTrue(ended, "\(name) did not end")
        seen.status = helper.waitForExit(seconds: 30)
        seen.output = helper.output + "\n" + errors(name)
        return seen
    }

    func task(_ name: String) throws -> [String: BusValue] {
        try XCTUnwrap(snapshot()[name], "no task \(name)")
    }

    /// "PACKAGE VERSION ii" for each package installed in the sandbox's dpkg database.
    func installed() throws -> [String] {
        let query = try run("/usr/bin/dpkg-query", ["--admindir=" + apt.appendingPathComponent("dpkg").path, "-W",
                                                    "-f", "${Package} ${Version} ${db:Status-Abbrev}\n"])
        return query.output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { $0.hasSuffix(" ii") }
    }

    func serveSlowly() throws {
        let server = try helper(
            "slow-http-directory.py", [apt.appendingPathComponent("repo").path, "0.1"], readsCommands: true)
        let port = try XCTUnwrap(server.waitForLine("port ")).dropFirst(5)
        try "deb [trusted=yes] http://127.0.0.1:\(port)/ ./\n"
            .write(to: apt.appendingPathComponent("etc-apt/sources.list"), atomically: true, encoding: .utf8)
    }

    /// Three packages from a server that takes about three seconds to send them, then dpkg
    /// with a postinst of 0.3 s each: the task rises through apt's download, then starts
    /// again with dpkg's work and rises through it, and finishes; removing one does too.
    func testInstallRisesThroughTheDownloadThenDpkgAndRemoveFinishes() throws {
        try serveSlowly()
        try aptGet(["update"])
        let packages = ["progressd-test-alpha", "progressd-test-beta", "progressd-test-gamma"]
        let install = try follow(
            "install",
            "exec progressctl run install -- apt-get -o APT::Status-Fd=1 -y install " + packages.joined(separator: " "))
        XCTAssertEqual(install.status, 0, install.output)
        let downloading = install.fractions(Self.download)
        let unpacking = install.fractions(Self.dpkg)
        XCTAssertGreaterThanOrEqual(downloading.count, 2, "\(install.readings)")
        XCTAssertEqual(downloading, downloading.sorted(), "\(install.readings)")
        XCTAssertGreaterThanOrEqual(unpacking.count, 2, "\(install.readings)")
        XCTAssertEqual(unpacking, unpacking.sorted(), "\(install.readings)")
        XCTAssertLessThan(try XCTUnwrap(install.lastIndex(Self.download)), try XCTUnwrap(install.firstIndex(Self.dpkg)),
                          "downloads, then dpkg: \(install.readings)")
        XCTAssertEqual(try task("install")["State"]?.string, "finished")
        XCTAssertEqual(try task("install")["Fraction"]?.double, 1)
        XCTAssertEqual(
            try installed(),
            ["progressd-test-alpha 2.0 ii", "progressd-test-beta 1.0 ii", "progressd-test-gamma 1.0 ii"])

        let remove = try follow(
            "remove", "exec progressctl run remove -- apt-get -o APT::Status-Fd=1 -y remove progressd-test-beta")
        XCTAssertEqual(remove.status, 0, remove.output)
        let removing = remove.fractions(Self.dpkg)
        XCTAssertGreaterThanOrEqual(removing.count, 1, "\(remove.readings)")
        XCTAssertEqual(removing, removing.sorted(), "\(remove.readings)")
        XCTAssertEqual(try task("remove")["State"]?.string, "finished")
        XCTAssertEqual(try installed(), ["progressd-test-alpha 2.0 ii", "progressd-test-gamma 1.0 ii"])
    }

    /// dpkg refusing a package (its preinst exits 1; it ships a file another package owns)
    /// fails the task with dpkg's reason as apt reported it (pmerror), after apt's status.
    func testAFailedInstallFailsTheTaskWithDpkgsReason() throws {
        try aptGet(["update"])
        try aptGet(["install", "progressd-test-alpha=1.0"])
        let cases = [
            ("broken", "progressd-test-broken_1.0_all.deb: new progressd-test-broken package pre-installation script "
                + "subprocess returned error exit status 1"),
            ("clash", "progressd-test-clash_1.0_all.deb: trying to overwrite '/srv/progressd-apt-test/alpha/data', "
                + "which is also in package progressd-test-alpha 1.0"),
        ]
        for (package, reason) in cases {
            let seen = try follow(
                package,
                "exec progressctl run \(package) -- apt-get -o APT::Status-Fd=1 -y install progressd-test-\(package)")
            XCTAssertEqual(seen.status, 100, seen.output)
            let task = try task(package)
            XCTAssertEqual(task["State"]?.string, "failed")
            XCTAssertEqual(task["Message"]?.string, "apt-get exited with status 100: " + reason)
        }
        XCTAssertEqual(try installed(), ["progressd-test-alpha 1.0 ii"])
    }

    /// `apt` without Status-Fd, run by progressctl on a terminal (script(1), 24 rows): its
    /// download line (`40% [1 progressd-test-beta …]`), then its own bar for dpkg on the
    /// bottom row (`Progress: [ 40%]`), read from what it draws.
    func testAptOnATerminalWithoutStatusFd() throws {
        try serveSlowly()
        try aptGet(["update"])
        let command = "progressctl run terminal -- apt -y install progressd-test-alpha progressd-test-beta "
            + "progressd-test-gamma"
        let seen = try follow(
            "terminal", "exec script -qfec 'stty rows 24 cols 80 && \(command)' /dev/null < /dev/null")
        XCTAssertEqual(seen.status, 0, seen.output)
        XCTAssertEqual(try task("terminal")["State"]?.string, "finished")
        // No message comes with these readings: the phases are told apart by where dpkg's begins.
        let fractions = seen.readings.map(\.fraction)
        let restart = try XCTUnwrap(
            fractions.indices.dropFirst().first { fractions[$0] < fractions[$0 - 1] }, "\(fractions)")
        let downloading = fractions[..<restart].filter { $0 > 0 && $0 < 1 }
        let unpacking = fractions[restart...].filter { $0 > 0 && $0 < 1 }
        XCTAssertGreaterThanOrEqual(downloading.count, 2, "\(fractions)")
        XCTAssertGreaterThanOrEqual(unpacking.count, 2, "\(fractions)")
        XCTAssertEqual(Array(unpacking), unpacking.sorted(), "\(fractions)")
        XCTAssertEqual(
            try installed(),
            ["progressd-test-alpha 2.0 ii", "progressd-test-beta 1.0 ii", "progressd-test-gamma 1.0 ii"])
    }

    /// docs/scripts.md's apt example (its row in the table of tools), run as written: an
    /// upgrade of the one package that has a newer version.
    func testTheManualsExampleRunsAsWritten() throws {
        let guide = try ManualPages.text("docs/scripts.md")
        let row = try XCTUnwrap(guide.split(separator: "\n").first { $0.hasPrefix("| apt |") })
        let example = try XCTUnwrap(row.split(separator: "`").dropLast().last.map(String.init))
        XCTAssertTrue(example.hasPrefix("progressctl run upgrade -- "), example)
        try aptGet(["update"])
        try aptGet(["install", "progressd-test-alpha=1.0"])
        let seen = try follow("upgrade", example)
        XCTAssertEqual(seen.status, 0, seen.output)
        XCTAssertEqual(try task("upgrade")["State"]?.string, "finished")
        XCTAssertGreaterThanOrEqual(seen.fractions(Self.dpkg).count, 1, "\(seen.readings)")
        XCTAssertEqual(try installed(), ["progressd-test-alpha 2.0 ii"])
    }
}
