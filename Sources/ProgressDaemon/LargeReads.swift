import ProgressBus
import ProgressCore

/// Reads over many tasks (Snapshot, SnapshotPage, GetManagedObjects, Changes, List) that
/// never hold the main loop for long, and are refused before anything of them is built.
///
/// - **Refused first.** A read of every task is refused when the least its reply could take
///   passes the limit: the store keeps the bytes of every name (`leastReplyBytes`), and each
///   task takes at least `leastBytes(of:)` besides, from the keys and the types of its
///   properties. So a refusal costs the same among 100,000 tasks as among ten. A read the
///   bound lets through is still bounded as it is written (`SlicedReply`).
/// - **In slices.** A reply is written `sliceTasks` tasks at a time. The first slice is written
///   in the call itself, so a small read is answered as before; a larger one goes on as steps
///   of its caller's call (`FairCallQueue.continueCall`): its caller's later calls wait for
///   its reply, and between the steps the main loop serves everyone else.
/// - **Sent off the loop.** GDBus converts a reply to the wire format as it sends it, value by
///   value, which takes longer than writing it: a larger reply is sent from `ReplySender`'s
///   thread, and its caller's call ends once it is on its way.
/// - **One at a time.** Only one reply of more than a slice is being written or sent at once, so the
///   memory held for replies being written stays one reply's (`Limits.maxReplyBytes`); the
///   others wait, each in its caller's turn, in the order they came.
/// - **Signals first.** Held signals go out before a reply written over several passes of the
///   main loop, as they do before the first slice, since its tasks may have changed meanwhile.
/// - **In order.** A reply leaves after those of the calls before it that wait for their
///   sync (`ChangeStream.replyInOrder`).
final class LargeReads {
    /// Tasks a slice writes: a fraction of a caller's share of the main loop (`FairCallQueue`).
    static let defaultSliceTasks = 128
    var sliceTasks = LargeReads.defaultSliceTasks
    private unowned let context: DaemonContext
    /// The reply of more than a slice being written, and the callers whose replies wait for it.
    private var writing: SlicedReply?
    private var waiting: [FairCallQueue.Turn] = []
    /// The least bytes of each property's value on the bus, by its type; learned from the
    /// first task read (a property's type never changes).
    private var leastValueBytes: [Int]?

    init(context: DaemonContext) {
        self.context = context
    }

    private var store: TaskStore { context.store }

    // MARK: Refusals

    /// Throws LimitExceeded (`tooBigForOneReply`) when a reply of every task, each as
    /// `element` with `properties`, can not fit, before anything is built.
    func refuseIfTooBig(_ method: String, _ element: SlicedReply.Element, _ properties: TaskProperties) throws(ProgressError) {
        let limit = store.limits.maxReplyBytes
        guard store.leastReplyBytes(perTask: leastBytes(of: element, properties)) > limit else { return }
        throw .tooBigForOneReply(method, tasks: store.count, limit: limit)
    }

    /// The fewest bytes one task's element takes besides its name (`leastBytes(of:_:table:valueBytes:)`).
    func leastBytes(of element: SlicedReply.Element, _ properties: TaskProperties) -> Int {
        guard let valueBytes = learnedValueBytes() else { return 0 }
        return Self.leastBytes(of: element, properties, table: store.properties, valueBytes: valueBytes)
    }

    private func learnedValueBytes() -> [Int]? {
        if let leastValueBytes { return leastValueBytes }
        guard let name = store.namesInOrder.first(where: { _ in true }), let task = store.task(name) else { return nil }
        leastValueBytes = Self.leastValueBytes(of: task, table: store.properties, texts: context.texts)
        return leastValueBytes
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

    /// One read of more than a slice: written in steps of its caller's call, then sent.
    private final class Read {
        enum Phase { case writing, sending, sent }
        let reply: SlicedReply
        let invocation: OpaquePointer
        /// The reply's value, or nil when `answer` refused the read itself.
        let answer: (SlicedReply) -> OpaquePointer?
        var turn: FairCallQueue.Turn?
        var phase = Phase.writing
        /// Whether its caller is out of the rotation until the reply is sent.
        var parked = false

        init(_ reply: SlicedReply, _ invocation: OpaquePointer, _ answer: @escaping (SlicedReply) -> OpaquePointer?) {
            self.reply = reply
            self.invocation = invocation
            self.answer = answer
        }
    }

    /// Writes `reply`, then answers `invocation` with what `answer` makes of it (nil when
    /// `answer` replied itself, with an error). A reply that fits in a slice is written and
    /// sent at once, as is any when no caller's call is running (a call GDBus hands over
    /// directly); a larger one is written in steps of the running call and sent from
    /// `ReplySender`'s thread, and its caller's next call waits until it is sent. Every reply
    /// leaves after those of the calls before it that wait for their sync.
    func write(_ reply: SlicedReply, to invocation: OpaquePointer, _ answer: @escaping (SlicedReply) -> OpaquePointer?) {
        if writing == nil, reply.writeSlice(of: sliceTasks, from: store) { return sendNow(reply, invocation, answer) }
        let read = Read(reply, invocation, answer)
        read.turn = context.identities.continueCall { [unowned self] in step(read) }
        guard read.turn != nil else {
            // Not in a caller's turn: nothing could wait behind it, so it is written now.
            while !reply.writeSlice(of: .max, from: store) {}
            return sendNow(reply, invocation, answer)
        }
        if writing == nil { writing = reply }
    }

    private func sendNow(_ reply: SlicedReply, _ invocation: OpaquePointer, _ answer: @escaping (SlicedReply) -> OpaquePointer?) {
        let maxBytes = store.limits.maxReplyBytes
        context.stream.replyInOrder {
            if let value = answer(reply) { MethodCall.reply(invocation, value, maxBytes: maxBytes) }
        }
    }

    private func step(_ read: Read) -> FairCallQueue.Step {
        switch read.phase {
        case .sent:
            writing = nil
            if !waiting.isEmpty { context.identities.resume(waiting.removeFirst()) }
            return .done
        case .sending:
            read.parked = true
            return .parked
        case .writing:
            break
        }
        if writing == nil { writing = read.reply }
        guard writing === read.reply else {
            if !waiting.contains(where: { $0 === read.turn }) { waiting.append(read.turn!) }
            return .parked
        }
        guard read.reply.writeSlice(of: sliceTasks, from: store) else { return .more }
        // The tasks may have changed since the first slice: what their signals hold goes first.
        context.flushBeforeRead(.everything)
        read.phase = .sending
        let maxBytes = store.limits.maxReplyBytes
        context.stream.replyInOrder { [unowned self] in
            guard let value = read.answer(read.reply) else { return sent(read) }
            ReplySender.shared.send(read.invocation, value, maxBytes: maxBytes) { [unowned self] in sent(read) }
        }
        if read.phase == .sent { return step(read) }
        read.parked = true
        return .parked
    }

    /// The reply is on its way: the caller's next step lets go of the writing and ends the call.
    private func sent(_ read: Read) {
        read.phase = .sent
        if read.parked { context.identities.resume(read.turn!) }
    }
}
