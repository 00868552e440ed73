@testable import ProgressModel
@testable import ProgressCore
import ProgressTestSupport
import XCTest

/// The front door holds the SetFraction values of tasks that update frequently and applies
/// them before anything else, in order, with the identity that sent them.
final class StagedValuesTests: XCTestCase {
    /// The daemon's side, kept: the batches of held values the front door returned, and
    /// the delays it gave.
    final class Sink {
        var batches: [ChangeBatch] = []
        var waits: [Int64] = []
    }

    let clock = ManualClock()
    let sink = Sink()
    lazy var door: TaskFrontDoor = {
        let door = TaskFrontDoor(store: TaskStore(clock: clock), access: OwnerAccess())
        door.holdsValues = true
        return door
    }()

    /// A command, its held batches and its delay kept as the daemon takes them.
    func perform(_ command: TaskCommand, by client: ClientID? = nil) -> CommandOutcome {
        let outcome = door.perform(command, by: .client(client ?? job))
        sink.batches += outcome.held
        if let due = outcome.heldValuesDue { sink.waits.append(due) }
        return outcome
    }

    func applyHeld() { sink.batches += door.applyHeld() }
    let job = ClientID(":1.1", identity: CallerIdentity(owner: .host, processID: 100))
    let app = ClientID(":1.3", identity: CallerIdentity(owner: .flatpak("org.example.App"), processID: 300))

    func name(_ text: String) -> TaskName { try! TaskName(text) }

    func start(_ text: String, frequent: Bool = true, by client: ClientID? = nil) {
        let update = try! TaskUpdate.parse([(key: "updates-frequently", value: .bool(frequent))], for: .start)
        XCTAssertNil(perform(.start(name(text), update), by: client).error)
    }

    func setFraction(_ text: String, _ fraction: Double, by client: ClientID? = nil) -> CommandOutcome {
        perform(.setFraction(name(text), fraction), by: client)
    }

    func fraction(_ text: String) -> Double? { door.store.task(name(text))?.fraction }

    func testAFrequentTasksValuesWaitAndTheLastIsAppliedBeforeTheNextCommand() {
        start("copy")
        let serial = door.store.task(name("copy"))!.serial
        for value in [0.1, 0.2, 0.3] {
            let outcome = setFraction("copy", value)
            XCTAssertNil(outcome.error)
            XCTAssertTrue(outcome.batch.isEmpty, "a held value is no change yet")
        }
        XCTAssertEqual(fraction("copy"), 0, "held, not applied")
        XCTAssertEqual(sink.waits, [100_000], "asked once, at the pace of 10 signals a second")
        XCTAssertTrue(sink.batches.isEmpty)

        let message = try! TaskUpdate.parse([(key: "message", value: .string("3 of 10"))], for: .update)
        let next = perform(.update(name("copy"), message))
        XCTAssertEqual(sink.batches.count, 1, "the held value went first")
        let applied = sink.batches[0]
        XCTAssertEqual(applied.origin, .client(job), "with the identity that sent it")
        XCTAssertEqual(applied.changes.map(\.name), [name("copy")])
        XCTAssertTrue(applied.changes[0].properties.contains(.fraction))
        XCTAssertLessThan(
            applied.changes[0].sequence, next.batch.changes[0].sequence, "numbered before the next command")
        XCTAssertEqual(door.store.task(name("copy"))?.serial, serial + 4, "each call counts, the held ones too")
        XCTAssertEqual(fraction("copy"), 0.3, "the last value held")
        XCTAssertEqual(door.store.task(name("copy"))?.message, "3 of 10")
    }

    func testValuesOfSeveralTasksAreAppliedInTheOrderTheyWereFirstHeld() {
        start("a")
        start("b")
        _ = setFraction("b", 0.5)
        _ = setFraction("a", 0.25)
        _ = setFraction("b", 0.75)
        applyHeld()
        XCTAssertEqual(sink.batches.map { $0.changes.map(\.name.text) }, [["b"], ["a"]])
        XCTAssertEqual(fraction("a"), 0.25)
        XCTAssertEqual(fraction("b"), 0.75)
        applyHeld()
        XCTAssertEqual(sink.batches.count, 2, "nothing held twice")
        _ = setFraction("a", 0.5)
        XCTAssertEqual(sink.waits.count, 2, "held again after the last were applied: asked again")
    }

    func testATaskThatDoesNotUpdateFrequentlyChangesAtOnce() {
        start("slow", frequent: false)
        let outcome = setFraction("slow", 0.5)
        XCTAssertFalse(outcome.batch.isEmpty)
        XCTAssertEqual(fraction("slow"), 0.5)
        XCTAssertTrue(sink.waits.isEmpty)
    }

    func testAFrequencyDetectedByTheStoreStartsHolding() {
        start("detected", frequent: false)
        for step in 1...10 { XCTAssertFalse(setFraction("detected", Double(step) / 100).batch.isEmpty) }
        XCTAssertFalse(
            setFraction("detected", 0.11).batch.isEmpty, "the 11th change in a second is the one that detects it")
        XCTAssertTrue(door.store.task(name("detected"))!.updatesFrequently)
        XCTAssertTrue(setFraction("detected", 0.12).batch.isEmpty, "held from then on")
        XCTAssertEqual(fraction("detected"), 0.11)
    }

    func testARefusedValueIsAnsweredAsAtOnceAfterTheHeldOnesAreApplied() {
        start("copy")
        _ = setFraction("copy", 0.4)
        XCTAssertEqual(setFraction("copy", 1.5).error?.name, "InvalidValue")
        XCTAssertEqual(sink.batches.count, 1, "applied before the refused call was answered")
        XCTAssertEqual(fraction("copy"), 0.4)
        XCTAssertEqual(
            setFraction("copy", 0.5, by: app).error?.name, "AccessDenied", "an app may not move the host's task")
        XCTAssertEqual(fraction("copy"), 0.4)
        XCTAssertEqual(setFraction("ghost", 0.5).error?.name, "NoSuchTask")
    }

    func testTasksThatWouldChangeMoreThanTheirValueAreNotHeld() {
        start("parent")
        let child = try! TaskUpdate.parse([(key: "parent", value: .string("parent"))], for: .start)
        XCTAssertNil(perform(.start(name("child"), child)).error)
        XCTAssertEqual(setFraction("parent", 0.5).error?.name, "InvalidValue", "a parent's value is its children's")

        start("spinner")
        XCTAssertNil(perform(.pulse(name("spinner"))).error)
        XCTAssertFalse(setFraction("spinner", 0.5).batch.isEmpty, "leaving indeterminate is signalled at once")

        start("stuck")
        clock.advance(seconds: 31)
        XCTAssertFalse(door.runTimers().allSatisfy(\.isEmpty), "stalled after the default 30 s")
        XCTAssertTrue(door.store.task(name("stuck"))!.isStalled)
        XCTAssertFalse(setFraction("stuck", 0.5).batch.isEmpty, "the activity that clears a stall is signalled at once")
    }

    func testTimersAndDeparturesApplyHeldValuesFirst() {
        start("copy")
        _ = setFraction("copy", 0.6)
        let timers = door.runTimers()
        XCTAssertEqual(
            timers.first?.changes.first?.properties.contains(.fraction), true, "the held value's batch first")
        XCTAssertEqual(fraction("copy"), 0.6)
        _ = setFraction("copy", 0.7)
        let departure = door.clientLeft(job)
        XCTAssertEqual(
            departure.first?.changes.first?.properties.contains(.fraction), true, "the held value's batch first")
        XCTAssertEqual(fraction("copy"), 0.7)
    }

    func testWithoutHoldingEveryValueIsAppliedAtOnce() {
        let plain = TaskFrontDoor(store: TaskStore(clock: clock), access: OwnerAccess())
        let update = try! TaskUpdate.parse([(key: "updates-frequently", value: .bool(true))], for: .start)
        XCTAssertNil(plain.perform(.start(name("copy"), update), by: .client(job)).error)
        XCTAssertFalse(plain.perform(.setFraction(name("copy"), 0.5), by: .client(job)).batch.isEmpty)
        XCTAssertEqual(plain.store.task(name("copy"))?.fraction, 0.5)
    }

    /// What a read shows, and what outputs hear before it, in order.
    final class ReadLog: ChangeOutput {
        var log: [String] = []
        func publish(_ batch: ChangeBatch) {
            for change in batch.changes { log.append("publish \(change.name.text) \(change.task.fraction)") }
        }
        func flushBeforeRead(_ scope: ReadScope, tasks: TaskView) {
            log.append("flush \(tasks.task(try! TaskName("copy"))?.fraction ?? -1)")
        }
    }

    /// Issue 39: no read sees a task older than an acknowledged write. Every way a view
    /// shows a task shows the held value, and the held value's batch reaches the outputs,
    /// then they flush, before the read's body runs.
    func testEveryReadPathSeesAHeldValueAfterItsBatchAndTheFlush() throws {
        let stream = ChangeStream()
        let log = ReadLog()
        stream.add(log)
        let door = TaskFrontDoor(store: TaskStore(clock: clock), access: OwnerAccess(), stream: stream)
        door.holdsValues = true
        let update = try TaskUpdate.parse(
            [(key: "updates-frequently", value: .bool(true)), (key: "app-id", value: .string("org.example.Files"))],
            for: .start)
        for batch in door.perform(.start(name("copy"), update), by: .client(job)).batches { stream.submit(batch) }
        let outcome = door.perform(.setFraction(name("copy"), 0.4), by: .client(job))
        XCTAssertTrue(outcome.batch.isEmpty, "held")
        XCTAssertNotNil(outcome.heldValuesDue)
        log.log.removeAll()

        let scopes: [ReadScope] = [.task(name("copy")), .tasks([name("copy")]), .tasks([]), .manager, .everything]
        for (index, scope) in scopes.enumerated() {
            let value = 0.4 + Double(index) / 100
            if index > 0 {
                XCTAssertTrue(
                    door.perform(.setFraction(name("copy"), value), by: .client(job)).batch.isEmpty, "held again")
            }
            door.read(scope) { tasks in
                XCTAssertEqual(tasks.task(name("copy"))?.fraction, value, "\(scope): task(name)")
                XCTAssertEqual(tasks.summary().fraction, value, "\(scope): Overall")
                XCTAssertEqual(tasks.summary(appId: "org.example.Files").fraction, value, "\(scope): Aggregate")
                XCTAssertEqual(
                    tasks.record(of: name("copy"))?.fields["fraction"], .double(value),
                    "\(scope): the journal's record")
                XCTAssertEqual(
                    tasks.namesInOrder.compactMap(tasks.task).map(\.fraction), [value], "\(scope): names in order")
                XCTAssertEqual(
                    tasks.names(after: "").compactMap(tasks.task).map(\.fraction), [value], "\(scope): a page")
                XCTAssertEqual(
                    log.log, ["publish copy \(value)", "flush \(value)"],
                    "\(scope): the batch, then the flush, then the body")
            }
            log.log.removeAll()
        }
    }
}
