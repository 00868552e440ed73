@testable import ProgressModel
@testable import ProgressCore
import ProgressTestSupport
import XCTest

/// The front door numbers every change, and the stream hands outputs every batch in
/// sequence order with no gaps, whatever the input: calls, timers, lost connections.
final class ChangeStreamTests: XCTestCase {
    final class RecordingOutput: ChangeOutput, ChangeRecorder {
        var published: [ChangeBatch] = []
        var recorded: [ChangeBatch] = []
        var reads: [ReadScope] = []
        var holdsTransitions = false
        var uncommitted = 0
        var commits = 0
        var log: [String] = []
        func publish(_ batch: ChangeBatch) {
            published.append(batch)
            log.append("publish \(batch.lastSequence!)")
        }
        func record(_ batch: ChangeBatch) {
            recorded.append(batch)
            if holdsTransitions { uncommitted += 1 }
        }
        var hasPending: Bool { uncommitted > 0 }
        func commit() {
            commits += 1
            uncommitted = 0
            log.append("commit")
        }
        func flushBeforeRead(_ scope: ReadScope, tasks: TaskView) { reads.append(scope) }
    }

    let clock = ManualClock()
    lazy var door = TaskFrontDoor(store: TaskStore(clock: clock), stream: stream)
    let stream = ChangeStream()
    let output = RecordingOutput()
    let job: ClientID = ":1.7"

    override func setUp() {
        stream.add(recorder: output)
        stream.add(output)
    }

    func name(_ text: String) -> TaskName { try! TaskName(text) }

    func update(_ pairs: [(String, OptionValue)], for call: TaskUpdate.Call = .start) -> TaskUpdate {
        try! TaskUpdate.parse(pairs.map { (key: $0.0, value: $0.1) }, for: call)
    }

    /// An input with a caller: the front door, then the recorder, then the outputs.
    @discardableResult
    func call(_ command: TaskCommand, by client: ClientID? = nil) -> ProgressError? {
        let outcome = door.perform(command, by: .client(client ?? job))
        stream.submit(outcome.batch) { _ in self.output.log.append("reply \(outcome.batch.lastSequence ?? 0)") }
        return outcome.error
    }

    func testAMixedWorkloadArrivesInSequenceWithNoGaps() {
        call(.start(name("parent"), update([("lifetime", .string("caller"))])))
        call(.start(name("child"), update([("parent", .string("parent")), ("lifetime", .string("caller"))])))
        call(.start(name("leased"), update([("lease-seconds", .uint64(5))])), by: ":1.9")
        call(.setFraction(name("child"), 0.5))
        XCTAssertNotNil(call(.setFraction(name("child"), 7)), "a refused call")
        call(.updateMany([
            NamedUpdate(name: name("leased"), update: update([("fraction", .double(0.2))], for: .update)),
        ]))
        clock.advance(seconds: 6)
        door.runTimers().forEach { stream.submit($0) }
        door.clientLeft(job).forEach { stream.submit($0) }
        call(.remove(name("parent")), by: ":1.9")

        let sequences = output.published.flatMap { $0.changes.map(\.sequence) }
        XCTAssertEqual(sequences, Array(1...UInt64(sequences.count)), "every change numbered once, in order")
        XCTAssertEqual(door.lastSequence, UInt64(sequences.count))
        XCTAssertEqual(
            output.recorded.map(\.lastSequence), output.published.map(\.lastSequence),
            "recorded before published, each batch")
        XCTAssertTrue(output.published.allSatisfy { !$0.isEmpty }, "empty batches are not published")

        let origins = output.published.map(\.origin)
        XCTAssertEqual(origins.first, .client(job))
        XCTAssertTrue(origins.contains(.timer), "the lease expiry came from the timer")
        XCTAssertTrue(origins.contains(.connectionClosed(job)), "the caller tasks failed when the job left")
        XCTAssertEqual(origins.last, .client(":1.9"))

        let timerBatch = output.published.first { $0.origin == .timer }!
        XCTAssertEqual(timerBatch.changes.map(\.name), [name("leased")])
        let lostBatch = output.published.first { $0.origin == .connectionClosed(job) }!
        XCTAssertEqual(Set(lostBatch.changes.map(\.name)), [name("parent"), name("child")])
        let removal = output.published.last!.changes
        XCTAssertEqual(removal.map(\.kind), [.removed, .removed])
        XCTAssertEqual(
            removal.compactMap(\.lastValue).map(\.state), [.failed, .failed], "a removed task's last value comes along")
    }

    func testARefusedCommandChangesNothingAndUsesNoNumber() {
        call(.start(name("copy"), TaskUpdate()))
        let before = door.lastSequence
        XCTAssertEqual(call(.finish(name("ghost")))?.name, "NoSuchTask")
        XCTAssertEqual(door.lastSequence, before)
        XCTAssertEqual(output.published.count, 1)
    }

    func testAnUpdateManyRefusedHalfwayPublishesWhatWasApplied() {
        call(.start(name("a"), TaskUpdate()))
        call(.start(name("b"), TaskUpdate()))
        let outcome = door.perform(.updateMany([
            NamedUpdate(name: name("a"), update: update([("fraction", .double(0.3))], for: .update)),
            NamedUpdate(name: name("ghost"), update: update([("fraction", .double(0.3))], for: .update)),
            NamedUpdate(name: name("b"), update: update([("fraction", .double(0.3))], for: .update)),
        ]), by: .client(job))
        XCTAssertEqual(
            outcome.error?.message.hasPrefix("entry 1 (the 1 before it were applied)"), true,
            outcome.error?.message ?? "")
        XCTAssertEqual(outcome.batch.changes.map(\.name), [name("a")])
        XCTAssertEqual(door.store.task(name("b"))?.fraction, 0)
    }

    func testTheAccessPolicyIsAskedBeforeAnythingChanges() {
        struct ReadOnly: AccessPolicy {
            func admit(
                _ command: TaskCommand, by origin: ChangeOrigin, tasks: TaskView
            ) throws(ProgressError) -> TaskCommand {
                if origin != .timer { throw .notAllowed("\(origin) may not \(command.taskName?.text ?? "batch")") }
                return command
            }
        }
        let guarded = TaskFrontDoor(store: TaskStore(clock: clock), access: ReadOnly())
        let outcome = guarded.perform(.start(name("copy"), TaskUpdate()), by: .client(job))
        XCTAssertEqual(outcome.error?.name, "NotAllowed")
        XCTAssertTrue(outcome.batch.isEmpty)
        XCTAssertEqual(guarded.store.count, 0)
        XCTAssertEqual(guarded.lastSequence, 0)
    }

    /// Group commit: what must be durable waits, with everything after it, for one commit;
    /// then the replies and the outputs, in order.
    func testAGroupWaitsForOneCommitThenRepliesAndPublishesInOrder() {
        var scheduled = 0
        stream.scheduleCommit = { scheduled += 1 }
        output.holdsTransitions = true
        call(.start(name("a"), TaskUpdate()))
        call(.start(name("b"), TaskUpdate()))
        output.holdsTransitions = false
        call(.setFraction(name("a"), 0.5))
        door.clientLeft(":1.99").forEach { stream.submit($0) }
        XCTAssertEqual(scheduled, 1, "one commit asked for the group")
        XCTAssertTrue(output.published.isEmpty, "nothing is heard of before it is durable")
        XCTAssertTrue(stream.hasWaiting)
        stream.commitWaiting()
        XCTAssertEqual(output.commits, 1)
        XCTAssertEqual(output.log, ["commit", "reply 1", "publish 1", "reply 2", "publish 2", "reply 3", "publish 3"])
        XCTAssertFalse(stream.hasWaiting)
        call(.setFraction(name("a"), 0.6))
        XCTAssertEqual(output.log.suffix(2), ["reply 4", "publish 4"], "nothing waiting: at once")
    }

    func testReadsReachEveryOutput() {
        door.read(.task(name("copy"))) { _ in }
        door.read(.everything) { _ in }
        XCTAssertEqual(output.reads, [.task(name("copy")), .everything])
    }

    /// An output that acts on some properties only: told of what could matter to it.
    final class NarrowOutput: ChangeOutput {
        var interest: TaskProperties = [.state]
        var heard: [[TaskChange.Kind]] = []
        func publish(_ batch: ChangeBatch) { heard.append(batch.changes.map(\.kind)) }
    }

    /// A value update reaches only the outputs that act on it; a task that comes or goes, or
    /// a property an output names, reaches it. An output that widens its interest and says
    /// so hears the next update; one that narrows it again stops hearing them.
    func testAnOutputHearsWhatItsInterestNamesAndAChangeOfItFromTheNextBatch() {
        let narrow = NarrowOutput()
        stream.add(narrow)
        call(.start(name("copy"), TaskUpdate()))
        call(.setFraction(name("copy"), 0.25))
        XCTAssertEqual(narrow.heard, [[.created]], "a new task, not a value")
        call(.update(name("copy"), update([("state", .string("paused"))], for: .update)))
        XCTAssertEqual(narrow.heard.count, 2, "a state it names")
        narrow.interest = .all
        call(.setFraction(name("copy"), 0.5))
        XCTAssertEqual(narrow.heard.count, 2, "the stream reads the interest again only when told")
        stream.interestChanged(narrow)
        call(.setFraction(name("copy"), 0.75))
        XCTAssertEqual(narrow.heard.count, 3)
        narrow.interest = []
        stream.interestChanged(narrow)
        call(.setFraction(name("copy"), 0.8))
        call(.remove(name("copy")))
        XCTAssertEqual(narrow.heard.last, [.removed])
        XCTAssertEqual(narrow.heard.count, 4)
        XCTAssertEqual(output.published.count, 7, "an output of every interest heard every batch")
        stream.interestChanged(RecordingOutput())  // not in the stream: nothing to change
    }

    /// A listener that acts when a client leaves, as a bridge failing the client's jobs does.
    final class ActingOutput: ChangeOutput {
        var log: [String] = []
        var onLeft: (ClientID) -> Void = { _ in }
        func publish(_ batch: ChangeBatch) { log.append("publish \(batch.lastSequence!)") }
        func clientLeft(_ client: ClientID) {
            log.append("left \(client)")
            onLeft(client)
        }
        func stop() { log.append("stop") }
    }

    /// Departures and the stop are events of the stream: after every batch before them, and
    /// what an output does while it hears one reaches every output after it, never before.
    func testDeparturesAndTheStopComeInOrderAndWhatTheyCauseFollows() {
        let acting = ActingOutput()
        let last = ActingOutput()
        stream.add(acting)
        stream.add(last)
        call(.start(name("bar"), update([("lifetime", .string("persistent"))])))
        acting.onLeft = { _ in
            let outcome = self.door.perform(
                .fail(self.name("bar"), message: "the application closed"), by: .daemon("test"))
            self.stream.submit(outcome.batch)
        }
        var scheduled = 0
        stream.scheduleCommit = { scheduled += 1 }
        output.holdsTransitions = true
        call(.start(name("waits"), TaskUpdate()))
        stream.depart(job)
        XCTAssertEqual(last.log, ["publish 1"], "the departure waits behind the batch that waits")
        output.holdsTransitions = false
        stream.commitWaiting()
        XCTAssertEqual(
            last.log, ["publish 1", "publish 2", "left :1.7", "publish 3"],
            "the failure it caused comes after the departure, for every output")
        XCTAssertEqual(acting.log, last.log)
        stream.stop()
        XCTAssertEqual(last.log.last, "stop")
    }

    /// Restored tasks reach the outputs as one batch of created tasks, parents first.
    func testRestoredTasksAreOneBatch() {
        call(.start(name("parent"), TaskUpdate()))
        call(.start(name("child"), update([("parent", .string("parent"))])))
        call(.start(name("another"), TaskUpdate()))
        let restoredDoor = TaskFrontDoor(store: TaskStore(clock: clock), firstSequence: 100)
        let (batch, problems) = restoredDoor.restore(door.store.allRecords)
        XCTAssertEqual(problems, [])
        XCTAssertEqual(batch.origin, .restore)
        XCTAssertEqual(batch.changes.map(\.name.text), ["another", "parent", "child"])
        XCTAssertEqual(batch.changes.map(\.sequence), [100, 101, 102])
        XCTAssertTrue(batch.changes.allSatisfy { $0.kind == .created && $0.properties == .all })
        XCTAssertEqual(
            restoredDoor.store.caps.held(.task, by: job.chargeKey), 0, "a restored task is charged to no one")
    }
}
