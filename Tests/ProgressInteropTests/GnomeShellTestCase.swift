import Foundation
import ProgressBus
import ProgressClient
import ProgressModel
import ProgressRender
import ProgressTestSupport
import XCTest

/// GNOME Shell headless (1280x800, software rendering) with progressd's extension, on the
/// test's private bus, which is also its system bus (the shell dies at start without one; its
/// login1 look-ups then fail softly). The bus may activate the shell's own helpers (dconf, the
/// accessibility bus, the extensions and notifications services) and nothing else. A test-only
/// extension turns on unsafe mode so that Eval answers (helpers/unsafe-mode@progressd.test for
/// 43 and 44, helpers/unsafe-mode45@progressd.test for 45 and later); the client
/// (helpers/gnome-shell-client.py) owns org.gnome.Screenshot, which the shell allows to take
/// screenshots, and reads the accessibility bus with pyatspi. Subclasses say where the shell
/// runs: this machine's (GnomeShellInteropTests, Debian 12's 43) or a Debian 13 root's
/// (GnomeShell48InteropTests), and both run `checkTheRingTheMenuAndCancel`.
class GnomeShellTestCase: InteropTestCase {
    static let uuid = "progressd@progressd.org"
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    /// The arc's colour in the extension's stylesheet (GNOME's accent blue, #3584e4).
    static let arcBlue = (red: 0x35, green: 0x84, blue: 0xE4)
    /// The panel's right half, where the indicators are: the top 32 pixels of the 1280x800
    /// monitor right of its middle (the clock's).
    static let panel = (x: 700, width: 580, height: 32)
    /// The shell's own helpers, activated on the private bus.
    static let services = [
        "ca.desrt.dconf", "org.a11y.Bus", "org.gnome.Shell.Extensions", "org.gnome.Shell.Notifications",
    ]

    var shellClient: HelperProcess!
    /// The Debian 13 root the shell, its helpers, the client and progressd run in; nil: this machine.
    var debian13: Debian13System?
    /// The test-only extension that turns on unsafe mode, for the shell's extension API.
    var unsafeModeExtension: String { debian13 == nil ? "unsafe-mode@progressd.test" : "unsafe-mode45@progressd.test" }

    override func busServiceDirectory() throws -> URL? {
        let directory = scratch.appendingPathComponent("services")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        if let debian13 { try debian13.installActivationFiles(Self.services, in: directory); return directory }
        for service in Self.services {
            try FileManager.default.copyItem(atPath: "/usr/share/dbus-1/services/\(service).service",
                                             toPath: directory.appendingPathComponent("\(service).service").path)
        }
        return directory
    }

    /// A program of the shell's system (this machine's, or the root's) as a helper.
    func shellHelper(
        _ executable: String, _ arguments: [String], readsCommands: Bool = false, errorFile: URL
    ) throws -> HelperProcess {
        if let debian13 {
            return try debian13.helper(executable, arguments, environment: shellEnvironment,
                                       readsCommands: readsCommands, errorFile: errorFile)
        }
        return try HelperProcess(executable, arguments, environment: shellEnvironment, readsCommands: readsCommands,
                                 errorFile: errorFile)
    }

    func shellRun(_ executable: String, _ arguments: [String]) throws -> CommandResult {
        if let debian13 { return try debian13.run(executable, arguments, environment: shellEnvironment) }
        return try CommandResult.run(executable, arguments, environment: shellEnvironment)
    }

    var shellEnvironment: [String: String] {
        var environment = environment
        environment["XDG_DATA_HOME"] = scratch.appendingPathComponent("data").path
        environment["XDG_CACHE_HOME"] = scratch.appendingPathComponent("cache").path
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = bus.address
        environment["LIBGL_ALWAYS_SOFTWARE"] = "1"
        environment["DISPLAY"] = nil
        environment["WAYLAND_DISPLAY"] = nil
        return environment
    }

    var shellLog: String {
        (try? String(contentsOf: scratch.appendingPathComponent("gnome-shell.log"), encoding: .utf8)) ?? ""
    }

    /// The extension as installed for this user (on Debian 13, the package's, which apt
    /// installed for every user), the test's unsafe-mode one beside it, both enabled in the
    /// scratch dconf database; then the shell, ready once it serves screenshots.
    func startShell() throws {
        let files = FileManager.default
        let extensions = scratch.appendingPathComponent("data/gnome-shell/extensions")
        try files.createDirectory(at: extensions, withIntermediateDirectories: true)
        if debian13 == nil {
            try files.copyItem(at: Self.repository.appendingPathComponent(".build/gnome-shell-43/\(Self.uuid)"),
                               to: extensions.appendingPathComponent(Self.uuid))
        }
        try files.copyItem(at: Self.helperDirectory.appendingPathComponent(unsafeModeExtension),
                           to: extensions.appendingPathComponent(unsafeModeExtension))
        // As root, 43 warns of a disabled screen lock once per user unless this is there.
        files.createFile(
            atPath: scratch.appendingPathComponent("data/gnome-shell/lock-warning-shown").path, contents: nil)
        // What the bus starts (dconf-service, the accessibility bus) must use the same
        // folders as the shell, or the shell would not read what gsettings writes.
        let activation = shellEnvironment.filter {
            ["HOME", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_DATA_DIRS",
             "DBUS_SYSTEM_BUS_ADDRESS", "LC_ALL"].contains($0.key)
        }
        _ = try client.call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "UpdateActivationEnvironment",
            [.array(elementType: "{ss}", activation.map { .dictEntry(.string($0.key), .string($0.value)) })])
        let settings = try shellRun(
            "/usr/bin/gsettings",
            ["set", "org.gnome.shell", "enabled-extensions", "['\(Self.uuid)', '\(unsafeModeExtension)']"])
        XCTAssertEqual(settings.status, 0, settings.errors)

        // 43 ends with a segfault on SIGTERM, every time: no core file for it.
        helpers.append(try shellHelper(
            "/bin/sh", ["-c", "ulimit -c 0; exec gnome-shell --headless --virtual-monitor 1280x800 --wayland --no-x11"],
            errorFile: scratch.appendingPathComponent("gnome-shell.log")))
        XCTAssertTrue(BusConnection.pump(seconds: 60) { self.nameOwner("org.gnome.Shell.Screenshot") != nil },
                      "the shell did not start: \(shellLog.suffix(1500))")
        shellClient = try shellHelper(
            "/usr/bin/python3", [Self.helperDirectory.appendingPathComponent("gnome-shell-client.py").path],
            readsCommands: true, errorFile: scratch.appendingPathComponent("client.stderr"))
        helpers.append(shellClient)
        XCTAssertEqual(reply("ready")?["owned"] as? Bool, true, "the client owns org.gnome.Screenshot")
        XCTAssertTrue(BusConnection.pump(seconds: 30) {
            (try? self.eval("Main.overview.hide(); Main.overview.visible")) == "false"
        }, "unsafe mode (Eval) and the overview hidden")
    }

    // MARK: The client's answers

    private var answered = 0

    /// The client's next JSON line, which must be of `kind`.
    func reply(_ kind: String, file: StaticString = #filePath, line: UInt = #line) -> [String: Any]? {
        answered += 1
        let wanted = answered
        guard BusConnection.pump(seconds: 60, until: { self.shellClient.lines.count >= wanted }) else {
            XCTFail("the client did not answer \(kind): \(shellClient.output)", file: file, line: line)
            return nil
        }
        let object = try? JSONSerialization.jsonObject(with: Data(shellClient.lines[wanted - 1].utf8)) as? [String: Any]
        XCTAssertEqual(object?["event"] as? String, kind, shellClient.lines[wanted - 1], file: file, line: line)
        return object
    }

    func command(
        _ line: String, _ kind: String, file: StaticString = #filePath, line number: UInt = #line
    ) -> [String: Any]? {
        shellClient.send(line)
        return reply(kind, file: file, line: number)
    }

    func eval(_ code: String) throws -> String {
        let answer = command("eval \(code)", "eval")
        guard answer?["ok"] as? Bool == true, let result = answer?["result"] as? String else {
            throw TestSupportError("Eval failed: \(String(describing: answer))")
        }
        return result
    }

    func screenshot(
        _ name: String, x: Int = panel.x, y: Int = 0, width: Int = panel.width, height: Int = panel.height
    ) throws -> (Raster, URL) {
        let file = scratch.appendingPathComponent("\(name).png")
        let answer = command("screenshot \(file.path) \(x) \(y) \(width) \(height)", "screenshot")
        guard answer?["ok"] as? Bool == true else {
            throw TestSupportError("no screenshot: \(String(describing: answer))")
        }
        return (try Raster(png: Array(try Data(contentsOf: file))), file)
    }

    /// Pixels of the panel in the arc's blue, give or take anti-aliasing.
    func arcPixels(_ raster: Raster) -> Int {
        raster.pixels.filter { pixel in
            abs(Int(pixel >> 16 & 0xFF) - Self.arcBlue.red) < 40
                && abs(Int(pixel >> 8 & 0xFF) - Self.arcBlue.green) < 40
                && abs(Int(pixel & 0xFF) - Self.arcBlue.blue) < 40
        }.count
    }

    @discardableResult
    func waitForArc(
        _ name: String, file: StaticString = #filePath, line: UInt = #line, _ condition: (Int) -> Bool
    ) -> Int {
        var count = -1
        let reached = BusConnection.pump(seconds: 30) {
            count = (try? screenshot(name)).map { arcPixels($0.0) } ?? -1
            return condition(count)
        }
        XCTAssertTrue(reached, "\(name): \(count) pixels of the arc's blue", file: file, line: line)
        return count
    }

    var indicatorPresent: Bool { (try? eval("Main.panel.statusArea['progressd'] !== undefined")) == "true" }

    /// Waits until the indicator has left the bar, as Eval reads it (an Eval that fails is
    /// not an answer): the state asserted, not a sign of it such as an empty arc, which a
    /// ring at 0 % or one redrawn before the tasks' states arrive shows as well.
    func waitForIndicatorGone(_ name: String, file: StaticString = #filePath, line: UInt = #line) {
        var answer = "no answer"
        let gone = BusConnection.pump(seconds: 30) {
            answer = (try? self.eval("Main.panel.statusArea['progressd'] !== undefined")) ?? "no answer"
            return answer == "false"
        }
        XCTAssertTrue(gone, "\(name): the indicator is still in the bar (Eval: \(answer))", file: file, line: line)
    }

    func accessibleTree() -> [String: Any] { command("a11y", "a11y") ?? [:] }

    /// The progress bars the accessibility bus shows, as (name, value).
    func progressBars() -> [(String, Double)] {
        ((accessibleTree()["bars"] as? [[String: Any]]) ?? []).map {
            ($0["name"] as? String ?? "", $0["value"] as? Double ?? -1)
        }
    }

    /// The shell's log holds no error or warning of JavaScript from the extension.
    func assertNoExtensionErrors(file: StaticString = #filePath, line: UInt = #line) {
        let blocks = shellLog.components(separatedBy: "\n\n")
            .filter { $0.contains("JS ERROR") || $0.contains("JS WARNING") }
        let ours = blocks.filter { $0.contains(Self.uuid) || $0.lowercased().contains("progressd") }
        XCTAssertEqual(ours, [], "the extension's JavaScript errors in the shell's log", file: file, line: line)
    }

    // MARK: The checks both shells pass

    /// The shell first, with no progressd; then progressd and a task: the ring, its growth,
    /// the menu's row and buttons on the accessibility bus, Cancel from the keyboard reaching
    /// the task, the indicator leaving with progressd and coming back with it, and leaving
    /// when the task ends; and no JavaScript error of the extension in the shell's log.
    func checkTheRingTheMenuAndCancel() throws {
        // The shell comes first, with no progressd on the bus: no indicator and no error.
        XCTAssertEqual(daemon.stop(), 0)
        daemon = nil
        try startShell()
        XCTAssertEqual(
            command("info \(Self.uuid)", "info")?["state"] as? Double, 1,
            "the extension is enabled: \(shellLog.suffix(1500))")
        XCTAssertEqual(arcPixels(try screenshot("no-progressd").0), 0)
        XCTAssertFalse(indicatorPresent)

        // progressd comes, a task at 42 %: the ring is there.
        try startDaemon()
        try manager("Start", [.string("copy"), .vardict([
            ("title", .string("Copying photos")), ("fraction", .double(0.42)), ("cancellable", .bool(true)),
            ("pausable", .bool(true)), ("lifetime", .string("persistent")),
        ])])
        let at42 = waitForArc("at-42") { $0 >= 10 }
        XCTAssertTrue(indicatorPresent)
        XCTAssertTrue(BusConnection.pump(seconds: 10) { self.accessibleTree()["indicator"] as? String == "1 job, 42%" },
                      "the indicator's accessible name is the summary: \(accessibleTree())")

        // 90 %: more of the arc.
        try manager("SetFraction", [.string("copy"), .double(0.9)])
        let at90 = waitForArc("at-90") { $0 > at42 * 3 / 2 }
        print("GNOME Shell's panel: \(at42) pixels of the arc's blue at 42 %, \(at90) at 90 %")

        // The menu, opened from the keyboard: the row is a progress bar on the accessibility
        // bus named by the title, with the percent as its value.
        XCTAssertEqual(
            try eval("Main.panel.statusArea['progressd'].grab_key_focus(); 'focused'"), "\"focused\"",
            "Eval's answer is JSON")
        XCTAssertEqual(command("key Return", "key")?["ok"] as? Bool, true)
        var bars: [(String, Double)] = []
        XCTAssertTrue(BusConnection.pump(seconds: 10) {
            bars = self.progressBars()
            return bars.count == 1 && bars[0].0 == "Copying photos" && bars[0].1 == 90
        }, "the rows on the accessibility bus: \(bars)")
        let buttons = (accessibleTree()["buttons"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        XCTAssertTrue(
            buttons.contains("Pause Copying photos") && buttons.contains("Cancel Copying photos"), "\(buttons)")
        // Drawn in place while open (1, AUTOMATIC_FOR_OPACITY), not through the offscreen
        // buffers the shell gives the menu and its labels (2, ALWAYS), which every frame that
        // moves a row fills again whole (indicator.js).
        let redirects = "const i = Main.panel.statusArea['progressd']; [i.menu.actor, ...[...i._rows.values()]"
            + ".flatMap(r => [r._title, r._status])].map(a => a.offscreen_redirect).join(' ')"
        XCTAssertEqual(try eval(redirects), "\"1 1 1\"", "the open menu's offscreen redirects")
        let menu = try screenshot("menu", x: 880, y: 0, width: 400, height: 120).1
        if let keep = ProcessInfo.processInfo.environment["PROGRESSD_SCREENSHOT_DIR"] {
            try? FileManager.default.removeItem(atPath: keep + "/gnome-shell-extension.png")
            try FileManager.default.copyItem(atPath: menu.path, toPath: keep + "/gnome-shell-extension.png")
        }

        // Down to the row, Right to Pause, Right to Cancel, Return: the job is asked to cancel.
        XCTAssertEqual(command("key Down Right Right", "key")?["ok"] as? Bool, true)
        XCTAssertTrue(BusConnection.pump(seconds: 10) {
            (self.accessibleTree()["focused"] as? [String: Any])?["name"] as? String == "Cancel Copying photos"
        }, "the keyboard reaches Cancel: \(accessibleTree())")
        XCTAssertEqual(command("key Return", "key")?["ok"] as? Bool, true)
        waitForProperty("copy", "CancelRequested", .bool(true))

        // progressd leaves: the indicator goes; it comes back with progressd and its task.
        XCTAssertEqual(daemon.stop(), 0)
        daemon = nil
        waitForIndicatorGone("progressd-gone")
        waitForArc("progressd-gone") { $0 == 0 }
        try startDaemon()
        waitForArc("progressd-back") { $0 > at42 }
        XCTAssertTrue(indicatorPresent)

        // The task ends: the indicator leaves the bar, and the ring with it.
        try manager("Finish", [.string("copy")])
        waitForIndicatorGone("finished")
        waitForArc("finished") { $0 == 0 }
        assertNoExtensionErrors()
    }
}
