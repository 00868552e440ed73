import CGLib
import ProgressBus
import ProgressModel

/// Whether accessibility is on, and where its bus is, read from the session bus without
/// ever blocking: `org.a11y.Status` (IsEnabled, and ScreenReaderEnabled on at-spi2-core
/// 2.46) on `org.a11y.Bus`, watched for changes and for the launcher coming and going;
/// then `org.a11y.Bus.GetAddress`. `AT_SPI_BUS_ADDRESS` overrides all of it, as in GTK and Qt.
///
/// While both flags are off nothing else happens: GetAddress is not called, since that
/// makes the launcher start the accessibility bus (and the registry) on demand.
final class AccessibilityBusWatch {
    static let busName = "org.a11y.Bus"
    static let busPath = "/org/a11y/bus"
    /// How long a call to the launcher may take before it counts as failed.
    static let timeoutMilliseconds: Int32 = 5000

    /// The address when accessibility turns on, nil when it turns off or its bus goes.
    private let report: (String?) -> Void
    private let session: OpaquePointer
    private var nameWatch: UInt32 = 0
    private var propertiesSubscription: UInt32 = 0
    /// The launcher's unique name while it is there; replies and signals from any other
    /// owner (an older launcher) are dropped.
    private var launcher: String?
    private var enabled = false
    /// Bumped whenever what we know changes, so that a late reply to an older question is dropped.
    private var generation = 0
    private(set) var address: String?
    private var overrideAddress: String?
    private lazy var reportOverride = MainLoopTimer(clock: MainLoopClock()) { [weak self] in
        if let self, let address = self.overrideAddress { self.set(address: address) }
    }

    init(session: OpaquePointer, environmentAddress: String?, report: @escaping (String?) -> Void) {
        self.session = session
        self.report = report
        if let environmentAddress, !environmentAddress.isEmpty {
            overrideAddress = environmentAddress
        }
    }

    private var userData: gpointer { Unmanaged.passUnretained(self).toOpaque() }

    private static func from(_ userData: gpointer?) -> AccessibilityBusWatch {
        Unmanaged<AccessibilityBusWatch>.fromOpaque(userData!).takeUnretainedValue()
    }

    func start() {
        if overrideAddress != nil {
            // Reported from the loop, not from inside start(), so the caller is set up first.
            reportOverride.arm(at: 0)
            return
        }
        propertiesSubscription = g_dbus_connection_signal_subscribe(
            session, Self.busName, "org.freedesktop.DBus.Properties", "PropertiesChanged", Self.busPath,
            "org.a11y.Status", G_DBUS_SIGNAL_FLAGS_NONE,
            { _, sender, _, _, _, parameters, userData in
                assertOnMainLoop()
                AccessibilityBusWatch.from(userData).propertiesChanged(
                    sender: sender.map { String(cString: $0) }, parameters!)
            },
            userData, nil)
        nameWatch = g_bus_watch_name_on_connection(
            session, Self.busName, G_BUS_NAME_WATCHER_FLAGS_NONE,
            { _, _, owner, userData in
                assertOnMainLoop()
                AccessibilityBusWatch.from(userData).launcherAppeared(String(cString: owner!))
            },
            { _, _, userData in
                assertOnMainLoop()
                AccessibilityBusWatch.from(userData).launcherVanished()
            },
            userData, nil)
    }

    func stop() {
        if propertiesSubscription != 0 { g_dbus_connection_signal_unsubscribe(session, propertiesSubscription) }
        if nameWatch != 0 { g_bus_unwatch_name(nameWatch) }
        propertiesSubscription = 0
        nameWatch = 0
        generation += 1
    }

    deinit { stop() }

    private func launcherAppeared(_ owner: String) {
        launcher = owner
        generation += 1
        let asked = generation
        BusCall.call(
            session, destination: owner, path: Self.busPath, interface: "org.freedesktop.DBus.Properties",
            method: "GetAll", Variant.tuple([Variant.string("org.a11y.Status")]), replyType: "(a{sv})",
            timeoutMilliseconds: Self.timeoutMilliseconds
        ) { [weak self] result in
            guard let self, asked == self.generation else { return }
            switch result {
            case .success(let reply): self.apply(VariantDictionary(child: 0, of: reply))
            case .failure(let failure): Log.warning("could not read org.a11y.Status: \(failure)")
            }
        }
    }

    private func launcherVanished() {
        launcher = nil
        enabled = false
        generation += 1
        set(address: nil)
    }

    private func propertiesChanged(sender: String?, _ parameters: OpaquePointer) {
        // GDBus delivers by the unique name; only the current launcher's news counts.
        guard let launcher, sender == launcher, Variant.typeString(parameters) == "(sa{sv}as)" else { return }
        apply(VariantDictionary(child: 1, of: parameters))
    }

    /// Reads IsEnabled and ScreenReaderEnabled from an a{sv}; either one on means on.
    private func apply(_ properties: VariantDictionary) {
        let isEnabled = properties.bool("IsEnabled")
        let screenReader = properties.bool("ScreenReaderEnabled")
        guard isEnabled != nil || screenReader != nil else { return }
        // A PropertiesChanged names only what changed; keep the other flag as it was.
        currentFlags = (isEnabled ?? currentFlags.isEnabled, screenReader ?? currentFlags.screenReader)
        let nowEnabled = currentFlags.isEnabled || currentFlags.screenReader
        guard nowEnabled != enabled else { return }
        enabled = nowEnabled
        generation += 1
        if enabled { askForAddress() } else { set(address: nil) }
    }

    private var currentFlags = (isEnabled: false, screenReader: false)

    private func askForAddress() {
        guard let launcher else { return }
        let asked = generation
        BusCall.call(
            session, destination: launcher, path: Self.busPath, interface: "org.a11y.Bus", method: "GetAddress",
            replyType: "(s)", timeoutMilliseconds: Self.timeoutMilliseconds
        ) { [weak self] result in
            guard let self, asked == self.generation else { return }
            switch result {
            case .success(let reply):
                let address = Variant.stringChild(reply, 0)
                if !address.isEmpty { self.set(address: address) }
            case .failure(let failure): Log.warning("could not get the accessibility bus address: \(failure)")
            }
        }
    }

    private func set(address new: String?) {
        guard new != address else { return }
        address = new
        report(new)
    }

    /// Asks again after the accessibility bus dropped us while the launcher stayed: the
    /// launcher may have restarted its bus at a new address.
    func busLost() {
        let lost = address
        address = nil
        if overrideAddress != nil || lost == nil { return }
        generation += 1
        if enabled { askForAddress() }
    }
}
