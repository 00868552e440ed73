import CGLib
import ProgressBus
import ProgressModel

/// One system service the bridge reads jobs from. The bus tells it when the service's name
/// gets an owner (the only sender it may believe) and when the name loses it or the bus
/// goes; in between it calls the owner and hears the owner's signals through this class,
/// which drops both at once when the owner leaves: a reply to a call made before is never
/// heard, and no signal of a later owner reaches a handler subscribed for an earlier one.
class SystemJobSource {
    /// The service's bus name, such as `org.freedesktop.PackageKit`.
    let busName: String
    unowned let jobs: SystemJobs
    /// The system bus, while the service is on it.
    private(set) var connection: OpaquePointer?
    /// The owner's unique name, while the service is on the bus.
    private(set) var owner = ""
    private var subscriptions: [UInt32] = []
    /// Cancels the calls to this owner when it leaves (FrontEnd's too).
    private(set) var calls = BusCancellable()

    init(busName: String, jobs: SystemJobs) {
        self.busName = busName
        self.jobs = jobs
    }

    final func appeared(on connection: OpaquePointer, owner: String) {
        self.connection = connection
        self.owner = owner
        calls = BusCancellable()
        serviceAppeared()
    }

    /// The owner left (or the bus went): `why` says which, for the live jobs' failure.
    final func vanished(_ why: String) {
        calls.cancel()
        for id in subscriptions { g_dbus_connection_signal_unsubscribe(connection, id) }
        subscriptions.removeAll()
        connection = nil
        serviceVanished(why)
    }

    /// What a source does when the service appears: subscribe, then ask for what runs now.
    func serviceAppeared() {}

    /// What a source does when the service goes: its live jobs fail with `why`.
    func serviceVanished(_ why: String) {}

    /// A call to the service's owner; its reply is dropped if the owner leaves first.
    func call(
        _ path: String, _ interface: String, _ method: String, _ parameters: OpaquePointer, replyType: String,
        done: @escaping (Result<OpaquePointer, BusError>) -> Void
    ) {
        guard let connection else { return }
        BusCall.call(
            connection, destination: owner, path: path, interface: interface, method: method, parameters,
            replyType: replyType, cancellable: calls, done: done)
    }

    /// Calls `handler` for each signal the owner sends that matches (nil matches anything).
    func subscribe(
        interface: String, member: String?, path: String? = nil, arg0: String? = nil,
        _ handler: @escaping (_ path: String, _ member: String, _ parameters: OpaquePointer) -> Void
    ) {
        guard let connection else { return }
        let box = Unmanaged.passRetained(SignalBox(handler)).toOpaque()
        subscriptions.append(g_dbus_connection_signal_subscribe(
            connection, owner, interface, member, path, arg0, G_DBUS_SIGNAL_FLAGS_NONE,
            { _, _, path, _, member, parameters, box in
                assertOnMainLoop()
                Unmanaged<SignalBox>.fromOpaque(box!).takeUnretainedValue().handler(
                    String(cString: path!), String(cString: member!), parameters!)
            }, box, { box in Unmanaged<SignalBox>.fromOpaque(box!).release() }))
    }

    private final class SignalBox {
        let handler: (String, String, OpaquePointer) -> Void
        init(_ handler: @escaping (String, String, OpaquePointer) -> Void) { self.handler = handler }
    }
}
