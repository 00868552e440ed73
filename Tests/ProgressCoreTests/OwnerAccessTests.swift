@testable import ProgressModel
@testable import ProgressCore
import ProgressTestSupport
import XCTest

/// The owner rules at the front door: who may do what to whose task.
final class OwnerAccessTests: XCTestCase {
    let clock = ManualClock()
    lazy var door = TaskFrontDoor(store: TaskStore(clock: clock), access: OwnerAccess())
    let script = ClientID(":1.1", identity: CallerIdentity(owner: .host, processID: 100))
    let panel = ClientID(":1.2", identity: CallerIdentity(owner: .host, processID: 200))
    let app = ClientID(":1.3", identity: CallerIdentity(owner: .flatpak("org.example.App"), processID: 300))
    let appAgain = ClientID(":1.4", identity: CallerIdentity(owner: .flatpak("org.example.App"), processID: 301))
    let other = ClientID(":1.5", identity: CallerIdentity(owner: .flatpak("org.example.Other"), processID: 400))
    let snap = ClientID(":1.6", identity: CallerIdentity(owner: .snap("firefox"), processID: 500))

    func name(_ text: String) -> TaskName { try! TaskName(text) }

    func update(_ pairs: [(String, OptionValue)], for call: TaskUpdate.Call = .start) -> TaskUpdate {
        try! TaskUpdate.parse(pairs.map { (key: $0.0, value: $0.1) }, for: call)
    }

    @discardableResult
    func perform(_ command: TaskCommand, by client: ClientID) -> ProgressError? {
        door.perform(command, by: .client(client)).error
    }

    func assertDenied(_ command: TaskCommand, by client: ClientID, _ fragment: String, line: UInt = #line) {
        let error = perform(command, by: client)
        XCTAssertEqual(error?.name, "AccessDenied", error?.message ?? "accepted", line: line)
        XCTAssertTrue(
            error?.message.contains(fragment) == true, "'\(error?.message ?? "")' lacks '\(fragment)'", line: line)
    }

    func testTheHostIsOneIdentityThatMayActOnAnyTask() {
        XCTAssertNil(perform(.start(name("copy"), TaskUpdate()), by: script))
        XCTAssertNil(
            perform(.setFraction(name("copy"), 0.5), by: panel), "a one-shot gdbus from another process drives it")
        XCTAssertNil(perform(.start(name("app task"), TaskUpdate()), by: app))
        XCTAssertNil(perform(.setFraction(name("app task"), 0.5), by: panel), "the host may act on an app's task")
        XCTAssertEqual(door.store.task(name("copy"))?.owner, .host)
    }

    func testASandboxedAppChangesOnlyItsOwnTasks() {
        XCTAssertNil(perform(.start(name("host task"), TaskUpdate()), by: script))
        XCTAssertNil(perform(.start(name("mine"), update([("lifetime", .string("lease"))])), by: app))
        XCTAssertNil(
            perform(.setFraction(name("mine"), 0.4), by: appAgain), "another process of the same app is the app")
        let denied = "task 'host task' belongs to the host (the user's unconfined processes); only the host may"
        for command: TaskCommand in [
            .update(name("host task"), TaskUpdate()), .setFraction(name("host task"), 1), .pulse(name("host task")),
            .finish(name("host task")), .fail(name("host task"), message: "no"), .remove(name("host task")),
            .requestCancel(name("host task")), .requestPause(name("host task")), .requestResume(name("host task")),
            .start(name("host task"), TaskUpdate()),
        ] {
            assertDenied(command, by: app, denied)
        }
        assertDenied(
            .finish(name("mine")), by: other,
            "task 'mine' belongs to the Flatpak app 'org.example.App'; "
                + "only the Flatpak app 'org.example.App' and the host may finish it")
        assertDenied(.finish(name("mine")), by: other, "connection :1.5 is the Flatpak app 'org.example.Other'")
        XCTAssertEqual(door.store.task(name("host task"))?.state, .running, "nothing changed")
        XCTAssertEqual(
            perform(.finish(name("ghost")), by: app)?.name, "NoSuchTask", "a missing task is the store's answer")
    }

    func testABatchWithOneForeignEntryChangesNothing() {
        XCTAssertNil(perform(.start(name("host task"), TaskUpdate()), by: script))
        XCTAssertNil(perform(.start(name("mine"), TaskUpdate()), by: app))
        let fraction = update([("fraction", .double(0.5))], for: .update)
        assertDenied(
            .updateMany([
                NamedUpdate(name: name("mine"), update: fraction),
                NamedUpdate(name: name("host task"), update: fraction),
            ]),
            by: app, "entry 1 (none of the entries were applied): task 'host task' belongs to")
        XCTAssertEqual(door.store.task(name("mine"))?.fraction, 0)
    }

    func testAnAppsAppIdIsForcedAndNoOtherIsAccepted() {
        XCTAssertNil(perform(.start(name("a"), TaskUpdate()), by: app))
        XCTAssertEqual(door.store.task(name("a"))?.appId, "org.example.App", "omitted: forced")
        XCTAssertNil(perform(.start(name("b"), update([("app-id", .string("org.example.App.desktop"))])), by: app))
        assertDenied(
            .start(name("c"), update([("app-id", .string("org.gnome.Nautilus"))])), by: app,
            "app-id 'org.gnome.Nautilus' is refused: connection :1.3 is the Flatpak app 'org.example.App', "
                + "whose tasks carry app-id 'org.example.App'")
        XCTAssertNil(door.store.task(name("c")))
        assertDenied(
            .update(name("a"), update([("app-id", .string("org.gnome.Nautilus"))], for: .update)), by: app,
            "is refused")
        XCTAssertNil(perform(.start(name("s"), update([("app-id", .string("firefox_firefox.desktop"))])), by: snap))
        XCTAssertNil(
            perform(.start(name("h"), update([("app-id", .string("org.gnome.Nautilus"))])), by: script),
            "the host names any app")
        let stranger = ClientID(":1.9", identity: CallerIdentity(owner: .otherUser(1001)))
        assertDenied(
            .start(name("u"), update([("app-id", .string("x"))])), by: stranger, "connection :1.9 is user 1001")
    }

    func testALiveCallerTaskIsTakenOverOnlyWhenAsked() {
        XCTAssertNil(perform(.start(name("job"), update([("lifetime", .string("caller"))])), by: script))
        assertDenied(
            .start(name("job"), TaskUpdate()), by: panel,
            "task 'job' is bound to connection :1.1, which is still on the bus; "
                + "only that connection may start it again, or a Start with take-over: true")
        XCTAssertNil(perform(.start(name("job"), TaskUpdate()), by: script), "its own connection re-attaches")
        XCTAssertNil(perform(.start(name("job"), update([("take-over", .bool(true))])), by: panel))
        XCTAssertTrue(door.clientLeft(script).allSatisfy(\.isEmpty), "the old connection no longer holds it")
        XCTAssertEqual(door.clientLeft(panel).flatMap(\.changes).count, 1)
    }

    func testAJobWhoseConnectionIsGoneReattachesAsBefore() {
        XCTAssertNil(perform(
            .start(name("job"), update([("lifetime", .string("caller")), ("linger-seconds", .uint64(0))])), by: app))
        XCTAssertNil(perform(.start(name("job 2"), update([("lifetime", .string("caller"))])), by: script))
        _ = door.clientLeft(script)
        XCTAssertNil(perform(.start(name("job 2"), TaskUpdate()), by: panel), "failed: starts afresh")
        XCTAssertEqual(door.store.task(name("job 2"))?.state, .running)
    }

    func testTheDaemonsOwnInputsAreNotChecked() {
        XCTAssertNil(perform(.start(name("mine"), TaskUpdate()), by: app))
        XCTAssertNil(door.perform(.finish(name("mine")), by: .daemon("kde")).error)
        XCTAssertNil(perform(.start(name("again"), TaskUpdate()), by: app))
        XCTAssertNil(door.perform(.fail(name("again"), message: "gone"), by: .timer).error)
    }

    /// A bridge speaks for the client behind it: the rules of a Progress1 call hold.
    func testABridgeIsHeldToTheRulesOfTheClientBehindIt() {
        let victimStart = update([("app-id", .string("org.victim.App"))])
        for bridge in ["launcher-entry", "kde"] {
            let error = door.perform(.start(name("\(bridge)/victim"), victimStart), by: .bridge(bridge, app)).error
            XCTAssertEqual(error?.name, "AccessDenied", "\(bridge): \(error?.message ?? "accepted")")
            XCTAssertTrue(
                error?.message.contains(
                    "app-id 'org.victim.App' is refused: connection :1.3 is the Flatpak app 'org.example.App'") == true,
                error?.message ?? "")
            XCTAssertNil(door.store.task(name("\(bridge)/victim")), "nothing was started")
        }
        XCTAssertNil(door.perform(
            .start(name("kde/own"), update([("app-id", .string("org.example.App"))])), by: .bridge("kde", app)).error)
        XCTAssertEqual(door.store.task(name("kde/own"))?.owner, .flatpak("org.example.App"))
        XCTAssertEqual(door.perform(.finish(name("kde/own")), by: .bridge("kde", other)).error?.name, "AccessDenied")
        XCTAssertNil(
            door.perform(.start(name("kde/host"), victimStart), by: .bridge("kde", script)).error, "the host may")
        XCTAssertEqual(door.store.caps.held(.task, by: app.chargeKey), 1, "charged to the app, not to the bridge")
        XCTAssertEqual(door.store.caps.held(.task, by: script.chargeKey), 1)
    }

    func testOwnersSurviveARestart() throws {
        XCTAssertNil(perform(.start(name("mine"), TaskUpdate()), by: app))
        XCTAssertNil(perform(.start(name("host"), TaskUpdate()), by: script))
        let records = door.store.allRecords
        XCTAssertEqual(records.first { $0.name == "mine" }?.fields["owner"], .string("flatpak:org.example.App"))
        XCTAssertNil(records.first { $0.name == "host" }?.fields["owner"], "the host is the default, not written")
        let restored = TaskFrontDoor(store: TaskStore(clock: clock), access: OwnerAccess())
        XCTAssertEqual(restored.store.restore(records), [])
        XCTAssertEqual(restored.store.task(name("mine"))?.owner, .flatpak("org.example.App"))
        XCTAssertEqual(restored.perform(.finish(name("host")), by: .client(other)).error?.name, "AccessDenied")
    }

    func testOwnerRecordTextRoundTrips() {
        for owner: TaskOwner in [.host, .flatpak("org.a.B"), .snap("vlc"), .otherUser(1001), .unknown, .system] {
            XCTAssertEqual(TaskOwner(recordText: owner.recordText), owner)
        }
        XCTAssertNil(TaskOwner(recordText: "bogus"))
    }

    // MARK: The system identity (jobs read from the system bus)

    let bridge = ClientID("(system bus)", identity: .system)

    func startSystemJob(cancellable: Bool = false) {
        var start = update([("app-id", .string("org.gnome.Software")), ("lifetime", .string("persistent"))])
        start.cancellable = cancellable
        XCTAssertNil(door.perform(.start(name("system/packagekit/7"), start), by: .bridge("system", bridge)).error)
    }

    func testNoSessionClientChangesASystemJob() {
        startSystemJob()
        XCTAssertEqual(door.store.task(name("system/packagekit/7"))?.owner, .system)
        XCTAssertEqual(
            door.store.task(name("system/packagekit/7"))?.appId, "org.gnome.Software", "the bridge names the front end")
        let job = name("system/packagekit/7")
        for client in [script, app] {
            for command: TaskCommand in [
                .update(job, TaskUpdate()), .updateMany([NamedUpdate(name: job, update: TaskUpdate())]),
                .setFraction(job, 1), .pulse(job), .finish(job), .fail(job, message: "no"), .remove(job),
                .start(job, TaskUpdate()),
            ] {
                assertDenied(
                    command, by: client,
                    "task 'system/packagekit/7' belongs to the system (jobs of system services); "
                        + "only its service may")
            }
        }
        for bridgeName in ["kde", "launcher-entry", "tray"] {
            let error = door.perform(.finish(job), by: .bridge(bridgeName, script)).error
            XCTAssertEqual(
                error?.name, "AccessDenied", "the \(bridgeName) bridge speaks for the host, which may not finish it")
        }
        XCTAssertEqual(door.store.task(job)?.state, .running, "nothing changed")
        XCTAssertNil(perform(.setFraction(job, 0.5), by: bridge), "the bridge changes its own")
        XCTAssertNil(perform(.finish(job), by: bridge))
    }

    func testOnlyTheBridgeStartsNamesUnderSystem() {
        assertDenied(
            .start(name("system/packagekit/99"), TaskUpdate()), by: script,
            "names under 'system/' are the jobs of system services")
        XCTAssertNil(
            door.store.task(name("system/packagekit/99")), "no squatting on a job's name before the bridge sees it")
        XCTAssertNil(perform(.start(name("copy"), TaskUpdate()), by: script))
        assertDenied(.finish(name("copy")), by: bridge, "task 'copy' belongs to the host")
    }

    func testRequestsOnASystemJobReachTheStoreWhoeverAsks() {
        startSystemJob(cancellable: true)
        XCTAssertNil(
            perform(.requestCancel(name("system/packagekit/7")), by: app), "the bridge passes it to the service")
        XCTAssertEqual(door.store.task(name("system/packagekit/7"))?.cancelRequested, true)
        XCTAssertEqual(
            perform(.requestPause(name("system/packagekit/7")), by: script)?.name, "NotAllowed", "not pausable")
    }

    func testSystemJobsAreNeverPersisted() {
        startSystemJob()
        XCTAssertNil(door.store.record(of: name("system/packagekit/7")))
        XCTAssertTrue(door.store.allRecords.isEmpty)
    }

    func testSystemJobsAreChargedToTheSystemIdentity() {
        startSystemJob()
        XCTAssertEqual(door.store.caps.held(.task, by: .owner(.system)), 1)
        XCTAssertEqual(door.store.caps.held(.task, by: script.chargeKey), 0)
        XCTAssertNil(perform(.remove(name("system/packagekit/7")), by: bridge))
        XCTAssertEqual(door.store.caps.held(.task, by: .owner(.system)), 0, "released with the task")
    }
}
