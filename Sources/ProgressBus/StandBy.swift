import CGLib

/// What a daemon does before it starts when another holds its state: it waits, on a main
/// loop of its own, until `name` has an owner on the session bus (the other daemon serves:
/// `owned`), or until `mayStart` says this one may go on (the other is gone: `mayStart`,
/// polled every 100 ms), or `seconds` pass.
///
/// This is what a D-Bus activation meets while the running daemon hands over to its
/// upgraded program (`ServiceRunner.handOver`): the bus started a second daemon for a call
/// sent while the name had no owner, and holds the call until someone owns the name. The
/// second daemon must neither read the state the first still holds nor end before the name
/// has an owner (the bus would then fail the held calls), so it waits for the new program
/// to take the name, and ends: the bus gives the held calls to the name's owner.
public enum StandBy {
    public enum Outcome: Equatable {
        case owned
        case mayStart
        case timedOut
        case noBus(String)
    }

    public static func wait(for name: String, seconds: UInt32, mayStart: @escaping () -> Bool) -> Outcome {
        var error: UnsafeMutablePointer<GError>?
        guard let connection = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, &error) else {
            return .noBus(consumeMessage(error))
        }
        defer { g_object_unref(UnsafeMutableRawPointer(connection)) }
        let state = State(mayStart: mayStart)
        let userData = Unmanaged.passUnretained(state).toOpaque()
        let watch = g_bus_watch_name_on_connection(
            connection, name, G_BUS_NAME_WATCHER_FLAGS_NONE,
            { _, _, _, userData in State.from(userData).end(.owned) }, nil, userData, nil)
        defer { g_bus_unwatch_name(watch) }
        let poll = g_timeout_add(100, { userData in
            let state = State.from(userData)
            if state.mayStart() { state.end(.mayStart) }
            return 1  // G_SOURCE_CONTINUE: removed below
        }, userData)
        let timeout = g_timeout_add_seconds(seconds, { userData in
            State.from(userData).end(.timedOut)
            return 1
        }, userData)
        defer {
            g_source_remove(poll)
            g_source_remove(timeout)
        }
        g_main_loop_run(state.loop)
        return state.outcome ?? .timedOut
    }

    private final class State {
        let loop = g_main_loop_new(nil, 0)
        let mayStart: () -> Bool
        var outcome: Outcome?

        init(mayStart: @escaping () -> Bool) { self.mayStart = mayStart }
        deinit { g_main_loop_unref(loop) }

        func end(_ outcome: Outcome) {
            guard self.outcome == nil else { return }
            self.outcome = outcome
            g_main_loop_quit(loop)
        }

        static func from(_ userData: gpointer?) -> State {
            Unmanaged<State>.fromOpaque(userData!).takeUnretainedValue()
        }
    }
}
