@testable import ProgressModel
@testable import ProgressCore
import ProgressTestSupport
import XCTest

/// A group of changes the recorder refuses (the disk is full) is taken back: the store is
/// as it was before the group (tasks, caps, bindings, children), each reply in it is the
/// recorder's error, no output hears of it, and the stream goes on numbering in order.
final class ChangeTakeBackTests: XCTestCase {
    final class RefusingRecorder: ChangeRecorder {
        var refusal: ProgressError?
        var pending = false
        func record(_ batch: ChangeBatch) { pending = true }
        var hasPending: Bool { pending }
        func commit() throws(ProgressError) {
            pending = false
            if let refusal { throw refusal }
        }
    }

    let clock = ManualClock()
    let stream = ChangeStream()
    lazy var door = TaskFrontDoor(store: TaskStore(clock: clock), stream: stream)
    let recorder = RefusingRecorder()
    let output = ChangeStreamTests.RecordingOutput()
    let job: ClientID = ":1.7"
    var replies: [String] = []

    override func setUp() {
        stream.add(recorder: recorder)
        stream.add(output)
    }

    func name(_ text: String) -> TaskName { try! TaskName(text) }

    func update(_ pairs: [(String, OptionValue)], for call: TaskUpdate.Call = .start) -> TaskUpdate {
        try! TaskUpdate.parse(pairs.map { (key: $0.0, value: $0.1) }, for: call)
    }

    func call(_ command: TaskCommand, _ label: String) {
        let outcome = door.perform(command, by: .client(job))
        stream.submit(outcome.batch) { refusal in
            self.replies.append("\(label): \(refusal?.name ?? outcome.error?.name ?? "ok")")
        }
    }

    func testARefusedGroupIsTakenBackAndTheStreamGoesOn() {
        call(.start(name("kept"), update([("lifetime", .string("persistent"))])), "kept")
        call(.start(name("bound"), update([("lifetime", .string("caller"))])), "bound")
        stream.commitWaiting()
        let tasksBefore = door.store.count
        let capsBefore = door.caps.held(.task, by: job.chargeKey)
        let published = output.published.count

        recorder.refusal = .storageFull("the state directory /state is full (0 bytes free)")
        call(.start(name("new"), update([("lifetime", .string("persistent"))])), "new")
        call(.start(name("child"), update([("parent", .string("kept"))])), "child")
        call(.finish(name("child")), "finish")
        door.clientLeft(job).forEach { stream.submit($0) }
        stream.depart(job)
        XCTAssertEqual(door.store.task(name("bound"))?.state, .failed, "the group changed the store")
        stream.commitWaiting()

        XCTAssertEqual(replies.suffix(3), ["new: StorageFull", "child: StorageFull", "finish: StorageFull"])
        XCTAssertNil(door.store.task(name("new")))
        XCTAssertNil(door.store.task(name("child")))
        XCTAssertEqual(door.store.task(name("kept"))?.state, .running)
        XCTAssertEqual(door.store.task(name("kept"))?.hasChildren, false)
        XCTAssertEqual(door.store.children[name("kept")], nil)
        XCTAssertEqual(door.store.count, tasksBefore)
        XCTAssertEqual(door.caps.held(.task, by: job.chargeKey), capsBefore, "what the group charged is released")
        // The departure in the group is not lost: once the rest is taken back, its caller task fails again.
        XCTAssertEqual(door.store.task(name("bound"))?.state, .failed)
        XCTAssertEqual(output.published.count, published, "no output heard of the refused batches")

        recorder.refusal = nil
        call(.start(name("later"), TaskUpdate()), "later")
        stream.commitWaiting()
        XCTAssertEqual(replies.last, "later: ok")
        XCTAssertEqual(output.published.dropFirst(published).map(\.origin), [.connectionClosed(job), .client(job)])
        let sequences = output.published.flatMap { $0.changes.map(\.sequence) }
        XCTAssertEqual(sequences, sequences.sorted(), "published in order after the refused numbers")
        XCTAssertNotNil(door.store.task(name("later")))
    }
}
