import CGLib
import ProgressBus
import ProgressModel

/// One job view object: the task it feeds, the connection that requested it, and what the
/// job has said (JobViewState). Each method of JobViewV2 and JobViewV3 is one row of a
/// table checked against KDE's XML; a row changes the state and leaves the command for
/// the input to perform.
final class JobView {
    enum Version { case v1, v2 }
    typealias Handler = @Sendable (JobView, MethodCall) -> Void

    let number: UInt64
    var path: String { KDEInterfaces.viewPath(number) }
    let task: TaskName
    /// The requesting connection, with its identity: only it may drive the view, its job is
    /// charged to it, and the access rules see it behind every command.
    let client: ClientID
    var owner: String { client.uniqueName }
    let version: Version
    var state: JobViewState
    var terminated = false
    /// Whether the view was taken off its connection's count of live views.
    var countedEnded = false
    /// Its object on the bus (JobViewV2 and JobViewV3), until the view is dropped.
    var object: ExportedObject?
    private var changed = false
    private var outcome: JobViewState.Outcome?

    init(number: UInt64, task: TaskName, client: ClientID, version: Version, state: JobViewState) {
        self.number = number
        self.task = task
        self.client = client
        self.version = version
        self.state = state
    }

    /// What the last call asks of the task, once: an Update, or the outcome.
    func takeCommand(limits: Limits) -> TaskCommand? {
        defer { changed = false; outcome = nil }
        switch outcome {
        case .finished?: return .finish(task)
        case .cancelled?:
            var update = TaskUpdate()
            update.state = .cancelled
            return .update(task, update)
        case .failed(let message)?:
            return .fail(
                task, message: ClientText.repaired(JobViewState.truncated(message, to: limits.maxMessageBytes)))
        case nil: return changed ? .update(task, state.taskUpdate(limits: limits)) : nil
        }
    }

    private func change(_ call: MethodCall, _ body: (inout JobViewState) -> Void) {
        body(&state)
        changed = true
        call.reply(nil)
    }

    private func terminate(code: UInt32, message: String, _ call: MethodCall) {
        terminated = true
        outcome = JobViewState.outcome(code: code, message: message)
        call.reply(nil)
    }

    static let v2Methods = MethodTable<Handler>(interface: KDEInterfaces.viewV2Interface, [
        // V1 clients send setError first, then terminate with the error text ("" for success).
        ("terminate", { view, call in view.terminate(code: view.state.errorCode, message: call.string(0), call) }),
        ("setSuspended", { view, call in view.change(call) { $0.suspended = call.bool(0) } }),
        ("setTotalAmount", { view, call in
            view.change(call) { $0.setAmount(call.uint64(0), unit: call.string(1), total: true) }
        }),
        ("setProcessedAmount", { view, call in
            view.change(call) { $0.setAmount(call.uint64(0), unit: call.string(1), total: false) }
        }),
        ("setPercent", { view, call in view.change(call) { $0.setPercent(call.uint32(0)) } }),
        // progressd estimates the rate from the amounts; the job's own figure is not needed.
        ("setSpeed", { _, call in call.reply(nil) }),
        ("setInfoMessage", { view, call in view.change(call) { $0.infoMessage = call.string(0) } }),
        ("setDescriptionField", { view, call in
            view.state.setField(call.uint32(0), label: call.string(1), value: call.string(2))
            view.changed = true
            call.reply(Variant.tuple([g_variant_new_boolean(1)]))
        }),
        ("clearDescriptionField", { view, call in view.change(call) { $0.clearField(call.uint32(0)) } }),
        ("setDestUrl", { _, call in call.reply(nil) }),
        ("setError", { view, call in
            view.state.errorCode = call.uint32(0)
            call.reply(nil)
        }),
    ])

    static let v2Signals = SignalTable(
        interface: KDEInterfaces.viewV2Interface, ["suspendRequested", "resumeRequested", "cancelRequested"])
    static let v3Signals = SignalTable(
        interface: KDEInterfaces.viewV3Interface,
        ["updateRequested", "suspendRequested", "resumeRequested", "cancelRequested"])

    static let v3Methods = MethodTable<Handler>(interface: KDEInterfaces.viewV3Interface, [
        ("terminate", { view, call in view.terminate(code: call.uint32(0), message: call.string(1), call) }),
        ("update", { view, call in
            let options = call.options(0)
            view.change(call) { state in for (key, value) in options { state.apply(key, value) } }
        }),
    ])
}
