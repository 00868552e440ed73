import CGLib
import Glibc
import ProgressBus
import ProgressModel

/// Who each connection is, learned from the bus once per connection and kept until it
/// leaves. The identity feeds `OwnerAccess` (who owns what) and the caps (per process, per
/// sandboxed app).
///
/// How it is learned: `org.freedesktop.DBus.GetConnectionCredentials` (asynchronously, never
/// blocking the main loop on the bus) gives the connection's UnixUserID, ProcessID and
/// LinuxSecurityLabel.
/// - another user id than the daemon's: `TaskOwner.otherUser`;
/// - a label `snap.NAME.APP` (AppArmor, as snapd confines): the Snap NAME;
/// - `/proc/PID/root/.flatpak-info` exists: the Flatpak app of its `[Application] name`,
///   read as a GKeyFile the way xdg-desktop-portal reads it. Flatpak runs its D-Bus proxy
///   inside the sandbox, so the process the bus reports is in the sandbox too;
/// - `/proc/PID/root` can not be reached (the process is gone): `unknown`, confined, so
///   that a failure never grants the host's rights;
/// - anything else of the user's: the host.
///
/// Calls that arrive before the answer wait for it, in a queue per connection, and are
/// handled in arrival order once it comes; later calls from a known connection are handled
/// at once, unless its caller has used its share of the main loop (`FairCallScheduler`). A
/// connection that leaves while its calls wait has its departure handled after them, so
/// that a `caller` task it started in its last call still fails when it goes; then nothing
/// of it is kept here.
///
/// Known limits: the process id is the one the bus recorded when the connection was made;
/// if that process has exited and its id was reused by the time the daemon reads /proc, the
/// new process's sandbox is read (the window is one bus round trip). Newer buses
/// (dbus-daemon 1.15.2 and dbus-broker) also give a ProcessFD, which would close that
/// window; Debian 12's dbus-daemon 1.14 does not.
final class CallerIdentityCache {
    private let connection: OpaquePointer
    private let ownUserID = getuid()
    private var known: [String: Known] = [:]
    private var pending: [String: Waiting] = [:]
    /// Connections whose identity could not be read (`noteUnread`).
    private var unread = 0
    private let fairness: FairCallScheduler
    /// Handles a connection's departure (what it held goes, its `caller` tasks fail).
    var clientLeft: (ClientID) -> Void = { _ in }

    /// A connection whose identity is known: its ClientID, made once, and its caller's turn.
    private final class Known {
        let client: ClientID
        let turn: FairCallScheduler.Turn
        init(_ client: ClientID, _ turn: FairCallScheduler.Turn) {
            self.client = client
            self.turn = turn
        }
    }

    /// The calls of one connection whose identity is still being asked for.
    private final class Waiting {
        var calls: [(ClientID) -> Void] = []
        var left = false
    }

    init(connection: OpaquePointer, clock: MainLoopClock) {
        self.connection = connection
        fairness = FairCallScheduler(clock: clock)
    }

    /// Runs `body` with the sender's ClientID, identity included: at once when it is known,
    /// else once the bus has answered, after the sender's earlier calls.
    func withIdentity(of sender: String, _ body: @escaping (ClientID) -> Void) {
        if let connection = known[sender] { return fairness.run(connection.turn, connection.client, body) }
        if let waiting = pending[sender] { return waiting.calls.append(body) }
        let waiting = Waiting()
        waiting.calls.append(body)
        pending[sender] = waiting
        askTheBus(about: sender)
    }

    /// `withIdentity` for a sender as GDBus gives it, a C string.
    func withIdentity(of sender: UnsafePointer<CChar>, _ body: @escaping (ClientID) -> Void) {
        withIdentity(of: String(cString: sender), body)
    }

    /// No call waits for an identity, in a caller's queue, or in steps.
    var isQuiet: Bool { pending.isEmpty && fairness.isQuiet }

    /// Makes the running call go on in steps (`FairCallScheduler.continueCall`).
    func continueCall(_ step: @escaping () -> FairCallScheduler.Step) -> FairCallScheduler.Turn? {
        fairness.continueCall(step)
    }

    /// Puts back in the rotation a caller whose step parked.
    func resume(_ turn: FairCallScheduler.Turn) { fairness.resume(turn) }

    /// A unique name lost its owner: forget it, after its waiting calls if it has any.
    func connectionLeft(_ name: String) {
        if let waiting = pending[name] {
            waiting.left = true
            return
        }
        guard let connection = known[name] else { return clientLeft(ClientID(name)) }
        // After the calls of its caller that wait, so that its own calls come first.
        fairness.run(connection.turn, connection.client) { [unowned self] client in
            known[name] = nil
            fairness.leave(connection.turn)
            clientLeft(client)
        }
    }

    private func askTheBus(about sender: String) {
        BusCall.call(
            connection, destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
            interface: "org.freedesktop.DBus", method: "GetConnectionCredentials",
            Variant.tuple([Variant.string(sender)]), replyType: "(a{sv})", autoStart: true
        ) { [self] result in
            switch result {
            case .success(let reply):
                learned(identity(fromCredentials: VariantDictionary(child: 0, of: reply), of: sender), for: sender)
            case .failure(let failure):
                noteUnread(sender, because: "the bus could not say who it is (\(failure))")
                learned(CallerIdentity(owner: .unknown), for: sender)
            }
        }
    }

    private func learned(_ identity: CallerIdentity, for sender: String) {
        guard let waiting = pending.removeValue(forKey: sender) else { return }
        let client = ClientID(sender, identity: identity)
        let connection = Known(client, fairness.join(client.chargeKey))
        known[sender] = connection
        for call in waiting.calls { fairness.run(connection.turn, client, call) }
        if waiting.left { connectionLeft(sender) }
    }

    /// The identity the credentials stand for; see the type's comment.
    private func identity(fromCredentials credentials: VariantDictionary, of sender: String) -> CallerIdentity {
        func number(_ key: String) -> UInt32? {
            guard credentials.value(key)?.signature == "u", let number = credentials.unsigned(key) else { return nil }
            return UInt32(number)
        }
        let userID = number("UnixUserID")
        let processID = number("ProcessID")
        var label = ""
        // A NUL-terminated byte string, as the bus sends it (none without the NUL).
        if let bytes = credentials.bytes("LinuxSecurityLabel"), bytes.last == 0 {
            label = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        let start = processID.flatMap(Self.processStart(of:))
        if let userID, userID != ownUserID {
            return CallerIdentity(owner: .otherUser(userID), processID: processID, processStart: start)
        }
        if let snap = Self.snapName(fromLabel: label) {
            return CallerIdentity(owner: .snap(snap), processID: processID, processStart: start)
        }
        guard let processID else { return CallerIdentity(owner: .unknown) }
        guard let owner = Self.sandbox(ofProcess: processID) else {
            noteUnread(
                sender, because: "its process \(processID) exited before progressd could read whether it is sandboxed")
            return CallerIdentity(owner: .unknown, processID: processID)
        }
        return CallerIdentity(owner: owner, processID: processID, processStart: start)
    }

    /// When process `pid` started, in clock ticks after boot: field 22 of /proc/PID/stat,
    /// counted after the command name's closing parenthesis (a name may hold spaces and
    /// parentheses). Nil when the process is gone or its stat can not be read.
    static func processStart(of pid: UInt32) -> UInt64? {
        var contents: UnsafeMutablePointer<CChar>?
        var length = 0
        guard g_file_get_contents("/proc/\(pid)/stat", &contents, &length, nil) != 0, let contents else { return nil }
        defer { g_free(contents) }
        let text = String(cString: contents)
        guard let close = text.lastIndex(of: ")") else { return nil }
        // After ") ": state (field 3), ppid (4), ... starttime is field 22, the 20th here.
        let fields = text[text.index(after: close)...].split(separator: " ")
        return fields.count > 19 ? UInt64(fields[19]) : nil
    }

    /// A caller whose identity could not be read, most often because it sent its calls and
    /// left at once (`dbus-send --type=method_call` without `--print-reply`), is confined:
    /// its calls on the host's tasks are refused, and unheard when they expect no reply. Said
    /// in the log for the first such connection and each time their count doubles, so that
    /// a flood of them can not flood it.
    private func noteUnread(_ sender: String, because reason: String) {
        unread += 1
        guard Self.isLogged(unread) else { return }
        Log.warning(
            "connection \(sender) is confined: \(reason) (\(unread) such connections so far); "
                + "its calls on the host's tasks are refused, unheard when they expect no reply "
                + "(dbus-send without --print-reply); a caller that waits "
                + "for its reply is read while it waits")
    }

    /// The counts at which `noteUnread` logs: 1, 2, 4, 8, ...
    static func isLogged(_ count: Int) -> Bool { count > 0 && count & (count - 1) == 0 }

    /// The snap name of an AppArmor label such as `snap.firefox.firefox (enforce)`.
    static func snapName(fromLabel label: String) -> String? {
        guard label.hasPrefix("snap.") else { return nil }
        let name = label.dropFirst(5).prefix { $0 != "." && $0 != " " }
        return name.isEmpty ? nil : String(name)
    }

    /// Host or Flatpak, from the process's root directory; nil when the process has gone
    /// (or its root may not be read), which proves nothing.
    static func sandbox(ofProcess pid: UInt32) -> TaskOwner? {
        let root = "/proc/\(pid)/root"
        guard access(root + "/", F_OK) == 0 else { return nil }
        let infoPath = root + "/.flatpak-info"
        guard access(infoPath, F_OK) == 0 else { return .host }
        let keyFile = g_key_file_new()
        defer { g_key_file_unref(keyFile) }
        var error: UnsafeMutablePointer<GError>?
        guard g_key_file_load_from_file(keyFile, infoPath, G_KEY_FILE_NONE, &error) != 0 else {
            Log.warning("process \(pid) has an unreadable \(infoPath): \(consumeMessage(error)); it is confined")
            return .unknown
        }
        guard let name = g_key_file_get_string(keyFile, "Application", "name", &error) else {
            Log.warning(
                "process \(pid)'s \(infoPath) has no [Application] name: \(consumeMessage(error)); it is confined")
            return .unknown
        }
        defer { g_free(name) }
        return .flatpak(String(cString: name))
    }
}
