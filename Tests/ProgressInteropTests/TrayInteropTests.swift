import Foundation
import ProgressBus
import ProgressClient
import ProgressRender
import ProgressTestSupport
import XCTest

/// The tray item in a real host: waybar 0.9.17's tray module (its own StatusNotifierWatcher
/// and host, libdbusmenu-gtk for the menu) in Debian's sway 1.7, headless, screenshots by
/// grim. sway refuses to run as root, so the desktop runs as `nobody`, with its own runtime
/// directory and HOME under the scratch folder, and the private bus lets every user in.
final class TrayInteropTests: InteropTestCase {
    override var busAllowsEveryUser: Bool { true }

    static let desktopUser: UInt32 = 65534  // nobody
    /// The running ring's blue (IconPixels' dark-theme fill, #62A0EA).
    static let ringBlue = (red: 0x62, green: 0xA0, blue: 0xEA)
    /// The bar: 640 by 32 pixels at the top of the 640x480 output.
    static let barHeight = 32

    var runtime: URL { scratch.appendingPathComponent("desktop-run") }

    var desktopEnvironment: [String: String] {
        [
            "PATH": "/usr/bin:/bin", "HOME": scratch.appendingPathComponent("desktop-home").path,
            "XDG_RUNTIME_DIR": runtime.path, "XDG_CONFIG_HOME": scratch.appendingPathComponent("desktop-config").path,
            "DBUS_SESSION_BUS_ADDRESS": bus.address,
            "LC_ALL": "C.UTF-8", "NO_AT_BRIDGE": "1",
            "WLR_BACKENDS": "headless", "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman",
        ]
    }

    /// `executable` as the desktop's user (setpriv execs it, so its pid is the helper's).
    func asDesktopUser(_ executable: String, _ arguments: [String]) -> [String] {
        ["--reuid=\(Self.desktopUser)", "--regid=\(Self.desktopUser)", "--clear-groups", "--", executable] + arguments
    }

    /// sway with one headless output, then waybar with a tray, both as `nobody`.
    func startDesktop() throws {
        let files = FileManager.default
        let config = scratch.appendingPathComponent("desktop-config")
        for directory in [
            runtime, scratch.appendingPathComponent("desktop-home"), config.appendingPathComponent("waybar"),
        ] {
            try files.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        try "output HEADLESS-1 resolution 640x480\n".write(
            to: config.appendingPathComponent("sway.conf"), atomically: true, encoding: .utf8)
        try """
            {"layer": "top", "position": "top", "height": \(Self.barHeight), "output": "HEADLESS-1",
             "modules-left": [], "modules-center": [], "modules-right": ["tray"], \
            "tray": {"icon-size": 24, "spacing": 4}}
            """.write(to: config.appendingPathComponent("waybar/config"), atomically: true, encoding: .utf8)
        try "* { border: none; border-radius: 0; min-height: 0; }\nwindow#waybar { background: #202020; }\n"
            .write(to: config.appendingPathComponent("waybar/style.css"), atomically: true, encoding: .utf8)
        for directory in [
            runtime, scratch.appendingPathComponent("desktop-home"), config, config.appendingPathComponent("waybar"),
        ] {
            chown(directory.path, Self.desktopUser, Self.desktopUser)
        }
        for file in ["sway.conf", "waybar/config", "waybar/style.css"] {
            chown(config.appendingPathComponent(file).path, Self.desktopUser, Self.desktopUser)
        }
        try files.setAttributes([.posixPermissions: 0o700], ofItemAtPath: runtime.path)

        let sway = try HelperProcess(
            "/usr/bin/setpriv", asDesktopUser("/usr/bin/sway", ["-c", config.appendingPathComponent("sway.conf").path]),
            environment: desktopEnvironment, errorFile: scratch.appendingPathComponent("sway.stderr"))
        helpers.append(sway)
        let socket = runtime.appendingPathComponent("wayland-1").path
        XCTAssertTrue(
            BusConnection.pump(seconds: 30) { files.fileExists(atPath: socket) },
            "sway made no wayland-1: \(log("sway.stderr"))")
        var waybarEnvironment = desktopEnvironment
        waybarEnvironment["WAYLAND_DISPLAY"] = "wayland-1"
        let waybar = try HelperProcess(
            "/usr/bin/setpriv", asDesktopUser("/usr/bin/waybar", []), environment: waybarEnvironment,
            errorFile: scratch.appendingPathComponent("waybar.stderr"))
        helpers.append(waybar)
        // waybar's tray is its own StatusNotifierWatcher.
        XCTAssertTrue(BusConnection.pump(seconds: 30) { self.nameOwner("org.kde.StatusNotifierWatcher") != nil },
                      "waybar's tray has no watcher: \(log("waybar.stderr"))")
    }

    func log(_ name: String) -> String {
        (try? String(contentsOf: scratch.appendingPathComponent(name), encoding: .utf8))
            .map { String($0.suffix(600)) } ?? ""
    }

    /// The bar as grim sees it (the file is kept in the scratch folder until tearDown).
    func screenshot(_ name: String) throws -> Raster {
        let file = runtime.appendingPathComponent("\(name).png")
        var environment = desktopEnvironment
        environment["WAYLAND_DISPLAY"] = "wayland-1"
        let result = try CommandResult.run(
            "/usr/bin/setpriv", asDesktopUser("/usr/bin/grim", ["-g", "0,0 640x\(Self.barHeight)", file.path]),
            environment: environment)
        guard result.status == 0 else { throw TestSupportError("grim failed: \(result.errors)") }
        return try Raster(png: Array(try Data(contentsOf: file)))
    }

    /// Pixels of the bar in the ring's blue, give or take waybar's scaling.
    func ringPixels(_ raster: Raster) -> Int {
        raster.pixels.filter { pixel in
            abs(Int(pixel >> 16 & 0xFF) - Self.ringBlue.red) < 24
                && abs(Int(pixel >> 8 & 0xFF) - Self.ringBlue.green) < 24
                && abs(Int(pixel & 0xFF) - Self.ringBlue.blue) < 24
        }.count
    }

    /// Takes screenshots until `condition` holds on the count of ring pixels; returns the last count.
    func waitForRing(
        _ name: String, file: StaticString = #filePath, line: UInt = #line, _ condition: (Int) -> Bool
    ) -> Int {
        var count = -1
        let reached = BusConnection.pump(seconds: 30) {
            count = (try? screenshot(name)).map(ringPixels) ?? -1
            return condition(count)
        }
        XCTAssertTrue(
            reached, "\(name): \(count) ring pixels; waybar said: \(log("waybar.stderr"))", file: file, line: line)
        return count
    }

    func testWaybarShowsTheRingAndItsMenuNamesTheTask() throws {
        try startDesktop()
        XCTAssertEqual(ringPixels(try screenshot("empty")), 0, "nothing runs, nothing in the tray")

        try manager("Start", [.string("copy"), .vardict([
            ("title", .string("Copying photos")), ("fraction", .double(0.42)), ("cancellable", .bool(true)),
            ("lifetime", .string("persistent")),
        ])])
        let at42 = waitForRing("at-42") { $0 >= 20 }
        let itemName = "org.kde.StatusNotifierItem-\(daemon.process.processIdentifier)-1"
        let registered = try client.call(
            "org.kde.StatusNotifierWatcher", "/StatusNotifierWatcher", "org.freedesktop.DBus.Properties", "Get",
            [.string("org.kde.StatusNotifierWatcher"), .string("RegisteredStatusNotifierItems")]).first?.strings ?? []
        XCTAssertTrue(registered.contains { $0.hasPrefix(itemName) }, "\(registered)")

        // The menu as the host reads it.
        let layout = try client.call(
            itemName, "/MenuBar", "com.canonical.dbusmenu", "GetLayout",
            [.int32(0), .int32(-1), .array(elementType: "s", [])])
        XCTAssertTrue(layout.last?.description.contains("Copying photos — 42%") == true, "\(layout)")

        // 90 %: more than twice the blue.
        try manager("SetFraction", [.string("copy"), .double(0.9)])
        let at90 = waitForRing("at-90") { $0 > at42 * 3 / 2 }
        XCTAssertGreaterThan(at90, at42)
        print("waybar's tray: \(at42) pixels of the ring's blue at 42 %, \(at90) at 90 %")

        try manager("Finish", [.string("copy")])
        waitForRing("ended") { $0 == 0 }
        XCTAssertNil(nameOwner(itemName))
    }
}
