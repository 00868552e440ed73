import CGLib

/// Sends large replies from a thread of its own. GDBus writes a reply's GVariant into the
/// D-Bus wire format as it sends it, visiting every value of it one by one, so a reply of a
/// thousand tasks' properties held the thread that sends it for tens of milliseconds:
/// on the main loop, every other caller waited that long.
///
/// The thread touches nothing of the daemon's: it takes a finished value (a GVariant, which
/// nothing changes once made) and an invocation, hands both to GDBus (whose connection may
/// be used from any thread), and tells the main loop when the reply is on its way, through
/// an idle callback of the main context. What follows on that connection from the main
/// loop is sent after it, provided the caller waits for `sent` (GDBus numbers and queues
/// messages in the order they are sent). One thread, one reply at a time, in order.
public final class ReplySender: @unchecked Sendable {
    /// The one sender of the process, its thread started with the first reply.
    public static let shared = ReplySender()

    private let queue: OpaquePointer
    private var thread: UnsafeMutablePointer<GThread>?

    private init() {
        queue = g_async_queue_new()
    }

    /// One reply on its way: what the thread reads, and what the main loop runs once sent.
    private final class Outgoing: @unchecked Sendable {
        let invocation: OpaquePointer
        let value: OpaquePointer
        let maxBytes: Int
        let sent: () -> Void

        init(invocation: OpaquePointer, value: OpaquePointer, maxBytes: Int, sent: @escaping () -> Void) {
            self.invocation = invocation
            self.value = value
            self.maxBytes = maxBytes
            self.sent = sent
        }
    }

    /// Sends `value` (floating or owned: it is consumed) as the reply to `invocation`, bounded
    /// by `maxBytes` as `MethodCall.reply`; then `sent` runs on the main loop. Call on the
    /// main loop.
    public func send(_ invocation: OpaquePointer, _ value: OpaquePointer, maxBytes: Int, then sent: @escaping () -> Void) {
        assertOnMainLoop()
        if thread == nil {
            thread = g_thread_new("progressd-replies", { queue in
                while true {
                    let item = g_async_queue_pop(OpaquePointer(queue))!
                    let outgoing = Unmanaged<Outgoing>.fromOpaque(item).takeUnretainedValue()
                    MethodCall.reply(outgoing.invocation, outgoing.value, maxBytes: outgoing.maxBytes)
                    g_idle_add_full(G_PRIORITY_DEFAULT, { item in
                        let outgoing = Unmanaged<Outgoing>.fromOpaque(item!).takeRetainedValue()
                        outgoing.sent()
                        return 0
                    }, item, nil)
                }
            }, UnsafeMutableRawPointer(queue))
        }
        let outgoing = Outgoing(invocation: invocation, value: value, maxBytes: maxBytes, sent: sent)
        g_async_queue_push(queue, Unmanaged.passRetained(outgoing).toOpaque())
    }
}
