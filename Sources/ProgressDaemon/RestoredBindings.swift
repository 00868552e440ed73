import CGLib
import ProgressBus
import ProgressModel
import ProgressCore

/// After a restart, each restored live task that names the connection it was bound to
/// (`TaskBinding`: a `progressctl run`, a KDE job view, a LauncherEntry, any `caller` task)
/// is bound to it again, and this input asks the bus whether that connection is still
/// there and still the same process: `GetConnectionCredentials` of its unique name, whose
/// process id and start time (/proc/PID/stat) must be those recorded. A connection that is
/// gone, or is another process, left while the daemon was down: its departure is handled
/// at once as any other's (`DaemonContext.clientLeft`), so its `caller` tasks fail and the
/// bridges end theirs as their own rules say. A connection that is there keeps its tasks,
/// and when it leaves, `ConnectionWatch` hears it as it hears anyone's departure.
///
/// No departure falls between the two: the watch subscribes to NameOwnerChanged (an earlier
/// input) before these questions go out on the same connection, and the bus handles a
/// connection's messages in order; a departure before a question is its error reply
/// (NameHasNoOwner), one after it a NameOwnerChanged signal. A departure heard twice ends
/// nothing twice: the first took the tasks' bindings.
final class RestoredBindings: DaemonInput {
    private let context: DaemonContext
    /// Questions still out, so a stop cancels their answers.
    private let cancellable = BusCancellable()

    init(context: DaemonContext) {
        self.context = context
    }

    var interest: TaskProperties { [] }
    func publish(_ batch: ChangeBatch) {}

    func start() {
        let bound = context.read(.tasks([])) { tasks in
            var clients: [String: ClientID] = [:]
            for name in tasks.namesInOrder {
                guard let task = tasks.task(name), task.isLive, let client = task.boundConnection else { continue }
                clients[client.uniqueName] = client
            }
            return clients.values.sorted { $0.uniqueName < $1.uniqueName }
        }
        guard !bound.isEmpty else { return }
        Log.notice(
            "\(bound.count) connection(s) had tasks bound to them before the restart: "
                + "asking the bus which are still there")
        for client in bound { ask(about: client) }
    }

    func stop() { cancellable.cancel() }

    private func ask(about client: ClientID) {
        BusCall.call(
            context.connection, destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
            interface: "org.freedesktop.DBus", method: "GetConnectionCredentials",
            Variant.tuple([Variant.string(client.uniqueName)]), replyType: "(a{sv})", cancellable: cancellable
        ) { [self] result in
            switch result {
            case .success(let reply):
                let credentials = VariantDictionary(child: 0, of: reply)
                let pid = credentials.unsigned("ProcessID").flatMap { UInt32(exactly: $0) }
                if let reason = Self.mismatch(recorded: client.identity, pid: pid) {
                    gone(client, reason)
                } else {
                    Log.notice("\(client) is still there: its tasks stay bound to it")
                }
            case .failure(let failure):
                if failure.name == "org.freedesktop.DBus.Error.NameHasNoOwner" {
                    gone(client, "it left the bus while progressd was down")
                } else {
                    gone(client, "the bus could not say whether it is there (\(failure))")
                }
            }
        }
    }

    /// Why the connection on the bus is not the recorded one, or nil when it is.
    static func mismatch(recorded: CallerIdentity, pid: UInt32?) -> String? {
        guard let recordedPid = recorded.processID else { return nil }
        guard let pid, pid == recordedPid else {
            return "its name belongs to process \(pid.map(String.init) ?? "unknown"), not \(recordedPid)"
        }
        guard let recordedStart = recorded.processStart else { return nil }
        guard CallerIdentityCache.processStart(of: pid) == recordedStart else {
            return "process \(pid) is not the one that started its tasks (it started at another time)"
        }
        return nil
    }

    private func gone(_ client: ClientID, _ reason: String) {
        Log.notice("\(client) is gone (\(reason)): its tasks end as their lifetime says")
        context.clientLeft(client)
    }
}
