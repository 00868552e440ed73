import Foundation
import ProgressBus
import ProgressClient
import ProgressTestSupport
import XCTest

/// When the item exists and whom it tells: the watcher, a watcher that replaces it, nobody
/// while there is none, and not while Plasma's job tracker shows the tasks.
final class TrayRegistrationTests: TrayTestCase {
    func testTheItemRegistersWhileATaskRunsAndAgainWithAReplacingWatcher() throws {
        let first = try watcher()
        XCTAssertNil(nameOwner(itemName), "no item while nothing runs")
        try start("copy", [("title", .string("Copying photos")), ("fraction", .double(0.42))])
        let registration = try XCTUnwrap(event(first, "register"))
        XCTAssertEqual(registration["service"] as? String, itemName)
        let daemonName = try XCTUnwrap(nameOwner(BusNames.busName))
        XCTAssertEqual(registration["owner"] as? String, daemonName, "the name is progressd's before it registers")
        XCTAssertEqual(registration["sender"] as? String, daemonName)
        XCTAssertEqual(try itemProperty("Category").string, "ApplicationStatus")
        XCTAssertEqual(try itemProperty("Id").string, "progressd")
        XCTAssertEqual(try itemProperty("Status").string, "Active")
        XCTAssertEqual(try itemProperty("Menu").string, "/MenuBar")
        XCTAssertEqual(try itemProperty("ItemIsMenu").bool, true)
        XCTAssertEqual(try itemProperty("IconName").string, "", "a name would hide the pixmaps")
        XCTAssertEqual(try itemProperty("Title").string, "1 task, 42 percent overall")

        // Plasma's and waybar's watchers replace one another: the new one hears of the item.
        let second = try watcher(replacing: true)
        XCTAssertEqual(event(second, "register")?["service"] as? String, itemName)
        XCTAssertEqual(events(first, "register").count, 1)

        // The task ends: the name goes, and hosts drop the item with it.
        try manager("Finish", [.string("copy")])
        XCTAssertTrue(BusConnection.pump(seconds: 10) { self.nameOwner(self.itemName) == nil })
    }

    func testAFailedTaskAsksForAttentionWhileItLingers() throws {
        let watcher = try watcher()
        try start("backup", [("title", .string("Backup")), ("fraction", .double(0.5))])
        event(watcher, "register")
        var statuses: [String] = []
        client.subscribe(sender: itemName, interface: Self.itemInterface, member: "NewStatus") { signal in
            statuses.append(signal.arguments.first?.string ?? "")
        }
        try manager("Fail", [.string("backup"), .string("Disk full")])
        XCTAssertTrue(BusConnection.pump(seconds: 10) { statuses == ["NeedsAttention"] }, "\(statuses)")
        XCTAssertEqual(try itemProperty("Status").string, "NeedsAttention")
        XCTAssertEqual(try itemProperty("Status", interface: Self.menuInterface).string, "notice")
        waitForToolTip { _, text in text.contains("Disk full") }
    }

    func testNoWatcherMeansNoItemAndNoError() throws {
        try start("copy", [("fraction", .double(0.3))])
        try manager("SetFraction", [.string("copy"), .double(0.6)])
        XCTAssertEqual(try manager("List").first?.array?.count, 1, "the daemon answers")
        XCTAssertNil(nameOwner(itemName))
        // A watcher that comes later is told at once.
        let late = try watcher()
        XCTAssertEqual(event(late, "register")?["service"] as? String, itemName)
        XCTAssertEqual(
            try itemProperty("Title").string, "1 task, 60 percent overall", "the value set while nobody watched")
        try manager("SetFraction", [.string("copy"), .double(0.8)])
        XCTAssertTrue(BusConnection.pump(seconds: 10) {
            (try? self.itemProperty("Title"))?.string == "1 task, 80 percent overall"
        }, "values reach the item once there is one")
        let errors = daemon.stopAndReadErrors()
        daemon = nil
        XCTAssertFalse(errors.contains("tray"), errors)
    }

    func testTheItemStepsAsideWhilePlasmasJobTrackerShowsTheTasks() throws {
        let watcher = try watcher()
        try start("copy", [("fraction", .double(0.3))])
        event(watcher, "register")
        // Another process takes org.kde.JobViewServer from progressd (which allows it), as plasmashell does.
        watcher.send("claim-tracker")
        let tracker = event(watcher, "tracker")?["owner"] as? String
        XCTAssertTrue(BusConnection.pump(seconds: 10) { self.nameOwner("org.kde.JobViewServer") == tracker })
        XCTAssertTrue(
            BusConnection.pump(seconds: 10) { self.nameOwner(self.itemName) == nil }, "no second display of the tasks")
        try manager("SetFraction", [.string("copy"), .double(0.4)])
        watcher.send("release-tracker")
        XCTAssertEqual(event(watcher, "register", count: 2)?["service"] as? String, itemName)
        XCTAssertEqual(
            try itemProperty("Title").string, "1 task, 40 percent overall", "the value set while the tracker showed it")
        try manager("SetFraction", [.string("copy"), .double(0.7)])
        XCTAssertTrue(BusConnection.pump(seconds: 10) {
            (try? self.itemProperty("Title"))?.string == "1 task, 70 percent overall"
        })
    }
}

/// `--no-tray`: no item, whatever runs.
final class TrayFlagTests: TrayTestCase {
    override var daemonArguments: [String] { ["--no-tray"] }

    func testNoTrayMeansNoItem() throws {
        let watcher = try watcher()
        try start("copy", [("fraction", .double(0.3))])
        // With the tray on, progressd asks for the item's name while it handles Start, so the
        // bus has given it out before it routes SetFraction's reply.
        try manager("SetFraction", [.string("copy"), .double(0.5)])
        XCTAssertNil(nameOwner(itemName))
        XCTAssertTrue(events(watcher, "register").isEmpty)
    }
}
