import CGLib
import Glibc
import ProgressBus
import ProgressCore

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
/// at once, unless its caller has used its share of the main loop (`FairCallQueue`). A
/// connection that leaves while its calls wait has its departure handled after them, so
/// that a `caller` task it started in its last call still fails when it goes; then nothing
/// of it is kept here.
///
/// Known limits: the process id is the one the bus recorded when the connection was made;
/// if that process has exited and its id was reused by the time the daemon reads /proc, the
/// new process's sandbox is read (the window is one bus round trip). Newer buses
/// (dbus-daemon 1.15.2 and dbus-broker) also give a ProcessFD, which would close that
/// window; Debian 12's dbus-daemon 1.14 does not.
final class CallerIdentities {
    private let connection: OpaquePointer
    private let ownUserID = getuid()
    private var known: [String: Known] = [:]
    private var pending: [String: Waiting] = [:]
    private let fairness = FairCallQueue()
    /// Handles a connection's departure (what it held goes, its `caller` tasks fail).
    var clientLeft: (ClientID) -> Void = { _ in }

    /// A connection whose identity is known: its ClientID, made once, and its caller's turn.
    private final class Known {
        let client: ClientID
        let turn: FairCallQueue.Turn
        init(_ client: ClientID, _ turn: FairCallQueue.Turn) {
            self.client = client
            self.turn = turn
        }
    }

    /// The calls of one connection whose identity is still being asked for.
    private final class Waiting {
        var calls: [(ClientID) -> Void] = []
        var left = false
    }

    init(connection: OpaquePointer) {
        self.connection = connection
    }

    /// Connections whose identity is known, for tests of the cache and for the log.
    var knownCount: Int { known.count }
    /// Connections and callers anything is kept for (none once all have left).
    var keptCount: Int { known.count + pending.count + fairness.callerCount }

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
        let box = Unmanaged.passRetained(LookupBox(self, sender)).toOpaque()
        g_dbus_connection_call(
            connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
            "GetConnectionCredentials", Variant.tuple([Variant.string(sender)]), nil, G_DBUS_CALL_FLAGS_NONE, -1, nil,
            { source, result, userData in
                assertOnMainLoop()
                let box = Unmanaged<LookupBox>.fromOpaque(userData!).takeRetainedValue()
                var error: UnsafeMutablePointer<GError>?
                let reply = g_dbus_connection_call_finish(OpaquePointer(source), result, &error)
                let identity: CallerIdentity
                if let reply {
                    identity = box.identities.identity(fromCredentials: reply)
                    g_variant_unref(reply)
                } else {
                    Log.warning("could not learn who \(box.sender) is: \(consumeMessage(error)); it is confined")
                    identity = CallerIdentity(owner: .unknown)
                }
                box.identities.learned(identity, for: box.sender)
            }, box)
    }

    private final class LookupBox {
        let identities: CallerIdentities
        let sender: String
        init(_ identities: CallerIdentities, _ sender: String) {
            self.identities = identities
            self.sender = sender
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

    /// The identity the credentials (a{sv} in a tuple) stand for; see the type's comment.
    private func identity(fromCredentials reply: OpaquePointer) -> CallerIdentity {
        let credentials = Variant.child(reply, 0)
        defer { g_variant_unref(credentials) }
        func lookup(_ key: String) -> OpaquePointer? { g_variant_lookup_value(credentials, key, nil) }
        var userID: UInt32?
        if let value = lookup("UnixUserID") {
            if Variant.typeString(value) == "u" { userID = g_variant_get_uint32(value) }
            g_variant_unref(value)
        }
        var processID: UInt32?
        if let value = lookup("ProcessID") {
            if Variant.typeString(value) == "u" { processID = g_variant_get_uint32(value) }
            g_variant_unref(value)
        }
        var label = ""
        if let value = lookup("LinuxSecurityLabel") {
            if Variant.typeString(value) == "ay", let bytes = g_variant_get_bytestring(value) { label = String(cString: bytes) }
            g_variant_unref(value)
        }
        if let userID, userID != ownUserID { return CallerIdentity(owner: .otherUser(userID), processID: processID) }
        if let snap = Self.snapName(fromLabel: label) { return CallerIdentity(owner: .snap(snap), processID: processID) }
        guard let processID else { return CallerIdentity(owner: .unknown) }
        return CallerIdentity(owner: Self.sandbox(ofProcess: processID), processID: processID)
    }

    /// The snap name of an AppArmor label such as `snap.firefox.firefox (enforce)`.
    static func snapName(fromLabel label: String) -> String? {
        guard label.hasPrefix("snap.") else { return nil }
        let name = label.dropFirst(5).prefix { $0 != "." && $0 != " " }
        return name.isEmpty ? nil : String(name)
    }

    /// Host or Flatpak, from the process's root directory.
    static func sandbox(ofProcess pid: UInt32) -> TaskOwner {
        let root = "/proc/\(pid)/root"
        // A process that has gone (or a root the daemon may not read) proves nothing.
        guard access(root + "/", F_OK) == 0 else { return .unknown }
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
            Log.warning("process \(pid)'s \(infoPath) has no [Application] name: \(consumeMessage(error)); it is confined")
            return .unknown
        }
        defer { g_free(name) }
        return .flatpak(String(cString: name))
    }
}
