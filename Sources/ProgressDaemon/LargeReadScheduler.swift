import ProgressBus
import ProgressCore
import ProgressModel

/// Reads over many tasks (Snapshot, SnapshotPage, GetManagedObjects, Changes, List) that
/// never hold the main loop for long, and are refused before anything of them is built.
///
/// - **Refused first.** A read of every task is refused when the least its reply could take
///   passes the limit: the store keeps the bytes of every name (`leastReplyBytes`), and each
///   task takes at least `leastBytes(of:)` besides, from the keys and the types of its
///   properties. So a refusal costs the same among 100,000 tasks as among ten. A read the
///   bound lets through is still bounded as it is written (`SlicedReply`).
/// - **In slices, in turns.** A reply is written `sliceTasks` tasks at a time (as many values
///   as that many tasks of every property: more tasks of fewer properties). The first slice
///   is written in the call itself, so a small read is answered as before, and so is a read
///   of up to half the longest reply (`wholeReadValues`), whole; a larger one goes on as
///   steps of its caller's call (`FairCallScheduler.continueCall`): its caller's later calls
///   wait for its reply, and the steps take their caller's turns in the rotation, beside
///   every other caller's calls and large reads. So several large reads of several callers
///   are written side by side, a share of the main loop each in every round: none waits for
///   another to be whole, and none can be passed over by a stream of others.
/// - **Bounded room.** The replies being written past their first slice reserve their room
///   (`SlicedReply.capacity`, at most `Limits.maxReplyBytes` each) from `maxWritingBytes`,
///   twice the largest reply: a read that finds no room waits after its first slice, parked in
///   its caller's turn, and reads get their room in the order they came, so a large one is
///   never passed over by a stream of smaller ones.
/// - **Signals first.** Held signals go out before a reply written over several passes of the
///   main loop, as they do before the first slice, since its tasks may have changed meanwhile.
/// - **In order.** A reply leaves after those of the calls before it that wait for their
///   sync (`ChangeStream.replyInOrder`).
/// - **What stays whole.** GDBus converts each reply to the wire format as it sends it, under
///   its connection's lock, which its worker thread takes to hand on every incoming message:
///   no other call reaches the main loop meanwhile, whatever thread converts. So a reply holds
///   at most `Limits.maxReplyValues` values (about 20 ms here; a Snapshot of 41,000 tasks took
///   0.7 s), bigger reads being refused. The conversion runs in the reply's last step, so the
///   rotation charges it to the reader's turn.
final class LargeReadScheduler {
    /// Tasks of every property a slice writes: a fraction of a caller's share of the main loop
    /// (`FairCallScheduler`). A slice of fewer values a task writes as many values: a List's
    /// 41,000 names are 3 slices, not 321 turns.
    static let defaultSliceTasks = 128
    var sliceTasks = LargeReadScheduler.defaultSliceTasks
    /// A read of at most this many values is written whole in its call: half the values of
    /// the longest reply (at the default limit, or a lower one). Writing costs a fraction of
    /// what GDBus's conversion of the reply then costs, which no slicing divides (41,000
    /// names: 2.8 ms to write, 7 to 11 ms to convert; a page of 1,000 tasks 17 to 20 ms to
    /// convert), so the call holds the main loop for less than a full page's last step.
    /// Written in slices instead, it would wait a turn in the rotation behind each large
    /// reader's conversion, and a poller's List beside four readers of pages waited longest.
    static func wholeReadValues(_ limits: Limits) -> Int {
        min(limits.maxReplyValues, Limits().maxReplyValues) / 2
    }

    /// The tasks of `reply` its first slice, in the call itself, writes: every one when the
    /// reply is small enough to be written whole (`wholeReadValues`).
    private func firstSliceTasks(of reply: SlicedReply) -> Int {
        reply.expectedValues <= Self.wholeReadValues(context.limits) ? .max : sliceTasks(of: reply)
    }

    /// The tasks of `reply` a slice writes.
    private func sliceTasks(of reply: SlicedReply) -> Int {
        let full = SlicedReply.Element.taskValues(properties: context.frontDoor.properties.descriptors.count)
        return max(1, sliceTasks * full / reply.valuesPerTask)
    }
    private unowned let context: DaemonContext
    /// Bytes reserved by the replies being written past their first slice, and their bound.
    private var writingBytes = 0
    let maxWritingBytes: Int
    /// Reads waiting for room, in the order they came, each parked in its caller's turn.
    private var waitingForRoom: [(reply: SlicedReply, turn: FairCallScheduler.Turn)] = []
    /// The least bytes of each property's value on the bus, by its type; learned from the
    /// first task read (a property's type never changes).
    private var leastValueBytes: [Int]?

    init(context: DaemonContext) {
        self.context = context
        maxWritingBytes = 2 * context.limits.maxReplyBytes
    }

    // MARK: Refusals

    /// Throws LimitExceeded (`tooManyValuesForOneReply`, `tooBigForOneReply`) when a reply of
    /// every task, each as `element` with `properties`, would hold more values than
    /// `Limits.maxReplyValues` or could not fit in its bytes, before anything is built; else
    /// gives the number of tasks.
    func refuseIfTooBig(_ method: String, _ element: SlicedReply.Element,
                        _ properties: TaskProperties) throws(ProgressError) -> Int {
        try context.read(.tasks([])) { tasks throws(ProgressError) in
            let values = SlicedReply.Element.valuesAround + tasks.count * element.values(properties)
            if values > tasks.limits.maxReplyValues {
                throw .tooManyValuesForOneReply(method, tasks: tasks.count, values: values,
                                                limit: tasks.limits.maxReplyValues)
            }
            let limit = tasks.limits.maxReplyBytes
            guard tasks.leastReplyBytes(perTask: leastBytes(of: element, properties, in: tasks)) > limit else {
                return tasks.count
            }
            throw .tooBigForOneReply(method, tasks: tasks.count, limit: limit)
        }
    }

    /// The fewest bytes one task's element takes besides its name (`leastBytes(of:_:table:valueBytes:)`).
    func leastBytes(of element: SlicedReply.Element, _ properties: TaskProperties, in tasks: TaskView) -> Int {
        if leastValueBytes == nil, let name = tasks.namesInOrder.first(where: { _ in true }),
           let task = tasks.task(name) {
            leastValueBytes = Self.leastValueBytes(of: task, table: tasks.properties, texts: context.texts)
        }
        guard let valueBytes = leastValueBytes else { return 0 }
        return Self.leastBytes(of: element, properties, table: tasks.properties, valueBytes: valueBytes)
    }

    /// The fewest bytes one task's element takes besides its name, given the least bytes
    /// of each property's value (`leastValueBytes`).
    ///
    /// An `{sv}` entry starts at a multiple of 8: its key and zero byte padded to 8, the
    /// value, the variant's zero byte and type, and the offset of the key's end; then the
    /// array's offset of the entry. A `{sa{sv}}` adds its name's zero byte, its offset and
    /// the array's; GetManagedObjects' path is at least its folder, a slash and the name
    /// (escaping only lengthens it), with the interface's entry around the properties.
    static func leastBytes(of element: SlicedReply.Element, _ properties: TaskProperties, table: TaskPropertyTable,
                           valueBytes: [Int]) -> Int {
        let dictionary = properties.indices.reduce(0) { sum, index in
            sum + roundedUp(table.descriptors[index].name.utf8.count + 1) + valueBytes[index] + 2 + 1 + 1
        }
        switch element {
        case .name:
            return 1 + 1
        case .byName:
            return 1 + dictionary + 2
        case .managedObject:
            let interfaceEntry = roundedUp(BusNames.taskInterface.utf8.count + 1) + dictionary + 2
            return BusNames.tasksPath.utf8.count + 1 + 1 + interfaceEntry + 1 + 2
        }
    }

    /// The least bytes of each property's value on the bus, by the type of its value in
    /// `task` (a property's type is the same in every task): a string or a boolean takes at
    /// least one byte, a number eight.
    static func leastValueBytes(of task: ProgressTask, table: TaskPropertyTable, texts: TaskDescribing) -> [Int] {
        table.descriptors.indices.map { index -> Int in
            switch table.value(at: index, of: task, describing: texts) {
            case .string, .bool: 1
            case .double, .uint64, .int64: 8
            }
        }
    }

    private static func roundedUp(_ bytes: Int) -> Int { (bytes + 7) & ~7 }

    // MARK: Writing in slices

    /// Writes `reply`, each slice from a read of `scope`, then calls `finish` with it: at
    /// once when it fits in a slice (or when no caller's call is running, as for a call
    /// GDBus hands over directly), else in steps of the running call. `finish` replies, after
    /// the replies of the caller's calls before it that wait for their sync.
    func write(_ reply: SlicedReply, reading scope: ReadScope, then answer: @escaping (SlicedReply) -> Void) {
        let finish = { [stream = context.stream] (reply: SlicedReply) in stream.replyInOrder { answer(reply) } }
        // A small read (a poll, a short page) is answered at once, even while large ones are written.
        if context.read(scope, { reply.writeSlice(of: firstSliceTasks(of: reply), from: $0) }) { return finish(reply) }
        guard let turn = context.identities.continueCall({ [unowned self] in step(reply, scope, finish) }) else {
            // Not in a caller's turn: nothing could wait behind it, so it is written now.
            reply.reserveAll()
            context.read(scope) { tasks in while !reply.writeSlice(of: .max, from: tasks) {} }
            return finish(reply)
        }
        if waitingForRoom.isEmpty && hasRoom(for: reply) {
            reserve(reply)
        } else {
            waitingForRoom.append((reply, turn))
        }
    }

    private func hasRoom(for reply: SlicedReply) -> Bool {
        writingBytes == 0 || writingBytes + reply.capacity <= maxWritingBytes
    }

    private func reserve(_ reply: SlicedReply) {
        writingBytes += reply.capacity
        reply.reserveAll()
    }

    private func step(
        _ reply: SlicedReply, _ scope: ReadScope, _ finish: (SlicedReply) -> Void
    ) -> FairCallScheduler.Step {
        // Resumed once it has its room (`admitWaiting`).
        guard reply.reserved else { return .parked }
        // Later slices apply held values; the signals of what they show are sent at the end.
        guard context.read(.tasks([]), { reply.writeSlice(of: sliceTasks(of: reply), from: $0) }) else { return .more }
        writingBytes -= reply.capacity
        // The tasks may have changed since the first slice: what outputs hold for them goes first.
        context.read(scope) { _ in }
        finish(reply)
        admitWaiting()
        return .done
    }

    /// Gives room to the reads that wait for it, in the order they came, as far as it goes.
    private func admitWaiting() {
        while let first = waitingForRoom.first, hasRoom(for: first.reply) {
            waitingForRoom.removeFirst()
            reserve(first.reply)
            context.identities.resume(first.turn)
        }
    }
}
