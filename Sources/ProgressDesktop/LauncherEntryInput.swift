import CGLib
import ProgressBus
import ProgressModel
import ProgressCore
import ProgressDaemon

/// LauncherEntry in: what applications send to docks (`com.canonical.Unity.LauncherEntry
/// .Update(s app_uri, a{sv})`, libunity's signal) becomes tasks.
///
/// Rules (README, "Desktop integration"):
/// * Each (sender, application) whose `progress-visible` is true is a task named
///   `launcher/<desktop id without .desktop>`; a second sender for the same application
///   while the first one's task is live gets `launcher/<id>#2`, `#3`, …
/// * `app-id` is the desktop id without `.desktop`; the title is the desktop file's Name
///   (GDesktopAppInfo), or the id when none is installed; `fraction` is `progress`.
/// * `progress-visible` false after progress reached 1 ⇒ finished; before ⇒ removed (the
///   protocol can not say cancelled). The sender leaving while progress is visible ⇒ failed,
///   "the application closed". `urgent` true ⇒ the message says the application needs
///   attention. `count` and `count-visible` are ignored (a badge is not progress).
/// * Signals from progressd's own connection and Plasma's re-broadcasts (`proxied-for`,
///   or the path /org/kde/notificationmanager/jobs) are dropped. Bad input (wrong
///   signature, a URI that is not application://….desktop, a key of the wrong type,
///   progress NaN or out of 0..1, more applications from one process than
///   `Limits.maxLauncherEntriesPerCaller`) is dropped or clamped, with one log line per kind.
/// * Each Update acts with the identity of its sender, learned as a Progress1 caller's is,
///   so the same access rules and caps hold: a sandboxed app's Update for another app's
///   URI is refused (the front door's AccessDenied, logged once per app), as its Start with
///   that app id would be; bars and entries are charged to the sender's process or app.
/// * Across a restart of progressd a bar's task stays bound to its sender (`RestoredBindings`
///   asks the bus whether it is still there): its entry is made again, so that the sender's
///   next Update moves the same task and its departure fails it; a sender gone meanwhile
///   fails it at once. Tasks from an older journal, which did not say whose they were, go.
/// * The daemon owns `com.canonical.Unity` only while nobody else does (libunity sends
///   nothing otherwise) and lets any dock replace it; it keeps listening either way.
public final class LauncherEntryInput: DaemonInput {
    static let interface = "com.canonical.Unity.LauncherEntry"
    static let unityName = "com.canonical.Unity"
    /// The bridge's origin, for the one sender it speaks for: the front door checks and
    /// charges what it starts as it would the sender's own Progress1 call.
    static func origin(for client: ClientID) -> ChangeOrigin { .bridge("launcher-entry", client) }
    static let kdeJobsPath = "/org/kde/notificationmanager/jobs"
    static let closedMessage = "the application closed"
    static let attentionMessage = "the application needs attention"

    /// One (sender, application) pair.
    struct Entry {
        /// Chosen each time the bar appears (`freeName`).
        var name: TaskName?
        let appId: String
        var visible = false
        var progress = 0.0
        var urgent = false
    }

    private let context: DaemonContext
    /// sender → desktop id → entry.
    private var entries: [String: [String: Entry]] = [:]
    /// Each sender with entries, identity included (entries are charged to it).
    private var senders: [String: ClientID] = [:]
    private var loggedKinds: Set<String> = []
    private var updateSubscription: UInt32 = 0
    private var nameOwner: UInt32 = 0
    /// Whether progressd holds com.canonical.Unity now (for tests and the log).
    public private(set) var ownsUnityName = false

    public init(context: DaemonContext) {
        self.context = context
    }

    /// Takes back what the last run left, then listens and asks for com.canonical.Unity.
    public func start() {
        takeBackRestoredTasks()
        let userData = Unmanaged.passUnretained(self).toOpaque()
        updateSubscription = g_dbus_connection_signal_subscribe(
            context.connection, nil, Self.interface, "Update", nil, nil, G_DBUS_SIGNAL_FLAGS_NONE,
            { _, sender, path, _, _, parameters, userData in
                assertOnMainLoop()
                LauncherEntryInput.from(userData).received(
                    sender: sender.map { String(cString: $0) } ?? "", path: String(cString: path!),
                    parameters: parameters!)
            }, userData, nil)
        // Without DO_NOT_QUEUE: progressd waits in line behind a dock and takes the name
        // back (so libunity keeps sending) when the dock leaves.
        nameOwner = g_bus_own_name_on_connection(
            context.connection, Self.unityName, G_BUS_NAME_OWNER_FLAGS_ALLOW_REPLACEMENT,
            { _, _, userData in
                assertOnMainLoop()
                let input = LauncherEntryInput.from(userData)
                input.ownsUnityName = true
                Log.notice("owning \(LauncherEntryInput.unityName), so that libunity applications send their progress")
            },
            { _, _, userData in
                assertOnMainLoop()
                let input = LauncherEntryInput.from(userData)
                if input.ownsUnityName {
                    Log.notice("\(LauncherEntryInput.unityName) went to another owner (a dock); still listening")
                }
                input.ownsUnityName = false
            }, userData, nil)
    }

    public var interest: TaskProperties { [] }
    public func publish(_ batch: ChangeBatch) {}

    /// The daemon's watch of lost connections tells us when an application left.
    public func clientLeft(_ client: ClientID) { senderLeft(client.uniqueName) }

    public func stop() {
        if updateSubscription != 0 { g_dbus_connection_signal_unsubscribe(context.connection, updateSubscription) }
        if nameOwner != 0 { g_bus_unown_name(nameOwner) }
        updateSubscription = 0
        nameOwner = 0
    }

    // MARK: Receiving

    func received(sender: String, path: String, parameters: OpaquePointer) {
        // GDBus hands a connection its own broadcasts: progressd's dock output is not input.
        if sender == uniqueName || sender.isEmpty { return }
        guard Variant.typeString(parameters) == "(sa{sv})" else {
            return drop(
                "signature", "an Update from \(sender) with signature \(Variant.typeString(parameters)), not (sa{sv})")
        }
        if path == Self.kdeJobsPath { return }
        let uri = Variant.stringChild(parameters, 0)
        guard let desktopId = Self.desktopId(uri: uri), let appId = validAppId(desktopId) else {
            return drop("uri", "an Update from \(sender) for \(uri.prefix(80)), which is not application://ID.desktop")
        }
        var proxied = false
        var visible: Bool?
        var progress: Double?
        var urgent: Bool?
        for (key, value) in Variant.optionsChild(parameters, 1) {
            let type = value.signature
            switch (key, value.kind) {
            case ("proxied-for", _): proxied = true
            case ("progress", .double(let number)): progress = clamped(number, sender: sender)
            case ("progress-visible", .bool(let flag)): visible = flag
            case ("urgent", .bool(let flag)): urgent = flag
            case ("progress", _), ("progress-visible", _), ("urgent", _), ("count", _), ("count-visible", _):
                if !(key == "count" && type == "x") && !(key == "count-visible" && type == "b") {
                    drop("type", "an Update from \(sender) with \(key) of type \(type), not libunity's")
                }
            default: break
            }
        }
        // Plasma re-broadcasts KDE jobs as LauncherEntry; they are not an application's own.
        if proxied { return }
        // In the sender's order: its identity is learned once, its Updates wait for it.
        context.withIdentity(of: sender) { [self] client in
            apply(
                client: client, desktopId: desktopId, appId: appId, visible: visible, progress: progress,
                urgent: urgent)
        }
    }

    private func apply(
        client: ClientID, desktopId: String, appId: String, visible: Bool?, progress: Double?, urgent: Bool?
    ) {
        let sender = client.uniqueName
        var perSender = entries[sender] ?? [:]
        var entry: Entry
        if let known = perSender[desktopId] {
            entry = known
        } else {
            // libunity sends progress before progress-visible, so an entry is kept (and
            // counted) from its first Update, before it has a task.
            do throws(ProgressError) {
                try context.caps.charge(.launcherEntry, to: client.chargeKey)
            } catch {
                return drop("too-many", "\(sender): \(error.message); the rest are ignored")
            }
            senders[sender] = client
            entry = Entry(name: nil, appId: appId)
        }
        if let progress { entry.progress = progress }
        if let urgent { entry.urgent = urgent }
        let wasVisible = entry.visible
        if let visible { entry.visible = visible }

        switch (wasVisible, entry.visible) {
        case (false, true):
            guard let name = freeName(for: appId) else { return drop("name", "no task name is left for \(appId)") }
            entry.name = name
            var update = TaskUpdate()
            // From another client's URI, past no OptionReader: control characters become spaces.
            update.title = ClientText.repaired(title(desktopId: desktopId, appId: appId))
            update.appId = ClientText.repaired(appId)
            update.fraction = entry.progress
            update.lifetime = .persistent
            update.message = entry.urgent ? Self.attentionMessage : ""
            if let error = context.perform(.start(name, update), by: Self.origin(for: client)) {
                entry.visible = false
                if error.name == "AccessDenied" {
                    refused(client, "an Update from \(sender) for \(appId) is refused: \(error.message)")
                } else {
                    drop("start", "could not start \(name.text) for \(sender): \(error.message)")
                }
            }
        case (true, true):
            var update = TaskUpdate()
            if progress != nil { update.fraction = entry.progress }
            if urgent != nil { update.message = entry.urgent ? Self.attentionMessage : "" }
            if update != TaskUpdate(), let name = entry.name {
                context.perform(.update(name, update), by: Self.origin(for: client))
            }
        case (true, false):
            // Reaching the end is a finish; hiding the bar before that says nothing more.
            if let name = entry.name {
                context.perform(entry.progress >= 1 ? .finish(name) : .remove(name), by: Self.origin(for: client))
            }
        case (false, false):
            break
        }
        perSender[desktopId] = entry
        entries[sender] = perSender
    }

    /// The sender left the bus: a bar still showing fails, so a crash never looks like success.
    func senderLeft(_ sender: String) {
        guard let perSender = entries.removeValue(forKey: sender),
              let client = senders.removeValue(forKey: sender) else { return }
        for _ in perSender.values { context.caps.release(.launcherEntry, from: client.chargeKey) }
        for name in perSender.values.compactMap({ $0.visible ? $0.name : nil }).sorted(by: { $0.text < $1.text }) {
            context.perform(.fail(name, message: Self.closedMessage), by: Self.origin(for: client))
        }
    }

    // MARK: Rules

    /// `application://ID.desktop` → `ID.desktop`; nil for anything else.
    static func desktopId(uri: String) -> String? {
        let scheme = "application://"
        guard uri.hasPrefix(scheme), uri.hasSuffix(".desktop") else { return nil }
        let id = String(uri.dropFirst(scheme.count))
        return id.count > ".desktop".count && !id.contains("/") ? id : nil
    }

    /// The task name rule: `launcher/<app id>`, then `#2`, `#3`… while the name is live
    /// for another sender. An ended task of the same name is started afresh.
    private func freeName(for appId: String) -> TaskName? {
        for index in 1...64 {
            let text = index == 1 ? "launcher/\(appId)" : "launcher/\(appId)#\(index)"
            guard let name = try? TaskName(text, limits: context.limits) else { return nil }
            let taken = entries.values.contains { $0.values.contains { $0.visible && $0.name == name } }
            if !taken, context.read(.tasks([]), { $0.task(name)?.isLive }) != true { return name }
        }
        return nil
    }

    private func validAppId(_ desktopId: String) -> String? {
        let appId = String(desktopId.dropLast(".desktop".count))
        guard appId.utf8.count <= context.limits.maxAppIdBytes,
              !appId.unicodeScalars.contains(where: \.properties.isWhitespace),
              !appId.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) else { return nil }
        return appId
    }

    /// The Name of the installed desktop file, or the id itself.
    private func title(desktopId: String, appId: String) -> String {
        guard let name = shim_desktop_app_name(desktopId) else { return appId }
        defer { g_free(name) }
        let text = String(cString: name)
        return text.isEmpty ? appId : String(text.utf8.prefix(context.limits.maxTitleBytes)) ?? appId
    }

    private func clamped(_ value: Double, sender: String) -> Double? {
        if value.isNaN {
            drop("progress-nan", "an Update from \(sender) with progress NaN; ignored")
            return nil
        }
        if value < 0 || value > 1 {
            drop("progress-range", "an Update from \(sender) with progress \(value); clamped to 0..1")
        }
        return min(1, max(0, value))
    }

    /// progressd's own unique name: signals from it are its own dock output.
    private var uniqueName: String {
        g_dbus_connection_get_unique_name(context.connection).map { String(cString: $0) } ?? ""
    }

    /// An Update the access rules refused: one log line per identity (an app, not each of its
    /// connections, so the lines stay few however many connections come and go).
    private func refused(_ client: ClientID, _ message: String) {
        drop("access \(client.identity.owner.recordText)", message)
    }

    /// One log line per kind of bad input, however often it comes.
    private func drop(_ kind: String, _ message: String) {
        guard loggedKinds.insert(kind).inserted else { return }
        Log.warning("LauncherEntry: \(message) (further cases of this kind are not logged)")
    }

    /// Restored live `launcher/` tasks: each bound to its sender gets its entry back (charged
    /// to the sender again), so the sender's Updates and departure reach it; one without a
    /// sender (an older journal's), or over the sender's cap, is dropped, as the application
    /// re-sends its state when com.canonical.Unity gets an owner again.
    private func takeBackRestoredTasks() {
        let restored = context.read(.tasks([])) { tasks in
            tasks.namesInOrder.compactMap { name in
                tasks.task(name).flatMap { name.text.hasPrefix("launcher/") && $0.isLive ? $0 : nil }
            }
        }
        for task in restored {
            guard let client = task.boundConnection,
                  (try? context.caps.charge(.launcherEntry, to: client.chargeKey)) != nil else {
                context.perform(.remove(task.name), by: .daemon("launcher-entry"))
                continue
            }
            senders[client.uniqueName] = client
            var entry = Entry(name: task.name, appId: task.appId)
            entry.visible = true
            entry.progress = task.fraction
            entry.urgent = task.message == Self.attentionMessage
            entries[client.uniqueName, default: [:]][task.appId + ".desktop"] = entry
        }
    }

    /// Each entry of an `a{sv}`: the key and the unboxed value, which `body` must not keep.
    private static func from(_ userData: gpointer?) -> LauncherEntryInput {
        Unmanaged<LauncherEntryInput>.fromOpaque(userData!).takeUnretainedValue()
    }
}
