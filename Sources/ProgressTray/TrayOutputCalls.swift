import CGLib
import ProgressBus
import ProgressModel
import ProgressCore
import ProgressPolicies

/// The calls hosts make on the item (/StatusNotifierItem) and on its menu (/MenuBar):
/// method tables and property getters, each checked against the embedded XML both ways.
extension TrayOutput {
    typealias Handler = @Sendable (TrayOutput, MethodCall) -> Void
    typealias Getter = @Sendable (TrayOutput) -> OpaquePointer

    /// ItemIsMenu is true, so hosts open the menu on a left click themselves (waybar, Plasma,
    /// the AppIndicator extension); Activate and the other clicks then have nothing to do.
    static let itemMethods = MethodTable<Handler>(interface: TrayInterfaces.itemInterface, [
        ("ContextMenu", { _, call in call.reply(nil) }),
        ("Activate", { _, call in call.reply(nil) }),
        ("SecondaryActivate", { _, call in call.reply(nil) }),
        ("Scroll", { _, call in call.reply(nil) }),
    ])

    static let itemProperties = PropertyTable<Getter>(interface: TrayInterfaces.itemInterface, [
        ("Category", { _ in Variant.string("ApplicationStatus") }),
        ("Id", { _ in Variant.string("progressd") }),
        ("Title", { $0.content.map { Variant.string($0.title) } ?? Variant.string("progressd") }),
        ("Status", { Variant.string($0.content?.status ?? "Passive") }),
        ("WindowId", { _ in g_variant_new_int32(0) }),
        ("IconThemePath", { _ in Variant.string("") }),
        ("Menu", { _ in Variant.objectPath(TrayInterfaces.menuPath) }),
        ("ItemIsMenu", { _ in g_variant_new_boolean(1) }),
        // Empty while the ring is drawn: hosts prefer a name to the pixmaps.
        ("IconName", { $0.iconName }),
        ("IconPixmap", { $0.pixmaps }),
        ("OverlayIconName", { _ in Variant.string("") }),
        ("OverlayIconPixmap", { _ in TrayContent.noPixmaps }),
        ("AttentionIconName", { $0.iconName }),
        // The same ring (red while a task failed): hosts that swap in the attention icon
        // for NeedsAttention still show the tasks' progress.
        ("AttentionIconPixmap", { $0.pixmaps }),
        ("AttentionMovieName", { _ in Variant.string("") }),
        ("ToolTip", {
            $0.content?.toolTip ?? TrayContent(tasks: [], summary: TaskSummary(), texts: $0.context.texts).toolTip
        }),
    ])

    static let menuMethods = MethodTable<Handler>(interface: TrayInterfaces.menuInterface, [
        ("GetLayout", { $0.getLayout($1) }),
        ("GetGroupProperties", { $0.getGroupProperties($1) }),
        ("GetProperty", { $0.getProperty($1) }),
        ("Event", { $0.event($1) }),
        ("EventGroup", { $0.eventGroup($1) }),
        // The layout is kept current, so a menu about to open never needs an update.
        ("AboutToShow", { output, call in
            guard output.menu.entry(call.int32(0)) != nil else { return TrayOutput.unknownItem(call, call.int32(0)) }
            call.reply(Variant.tuple([g_variant_new_boolean(0)]))
        }),
        ("AboutToShowGroup", { output, call in
            let ids = TrayOutput.int32s(call.child(0))
            let unknown = ids.filter { output.menu.entry($0) == nil }
            call.reply(Variant.tuple([TrayOutput.int32Array([]), TrayOutput.int32Array(unknown)]))
        }),
    ])

    static let itemSignals = SignalTable(interface: TrayInterfaces.itemInterface, [
        "NewTitle", "NewIcon", "NewAttentionIcon", "NewOverlayIcon", "NewToolTip", "NewStatus",
    ])
    static let menuSignals = SignalTable(
        interface: TrayInterfaces.menuInterface, ["ItemsPropertiesUpdated", "LayoutUpdated", "ItemActivationRequested"])

    static let menuProperties = PropertyTable<Getter>(interface: TrayInterfaces.menuInterface, [
        ("Version", { _ in g_variant_new_uint32(3) }),
        ("TextDirection", { Variant.string($0.textDirection) }),
        ("Status", { Variant.string($0.content?.status == "NeedsAttention" ? "notice" : "normal") }),
        ("IconThemePath", { _ in Variant.container("as") { _ in } }),
    ])

    /// The signal tables against the XML; the method and property tables are checked
    /// when their interfaces are made (`exportedInterfaces`), here first so that a
    /// mismatch stops the daemon at start.
    func checkTables() throws(DaemonError) {
        try Self.itemSignals.check(against: interfaces.item)
        try Self.menuSignals.check(against: interfaces.menu)
        _ = try exportedInterfaces()
    }

    /// The item's and the menu's interfaces, their rows bound to this output.
    private func exportedInterfaces() throws(DaemonError) -> (item: ExportedInterface, menu: ExportedInterface) {
        let bindMethod = { [unowned self] (handler: @escaping Handler) -> ExportedInterface.Method in
            { [unowned self] call in handler(self, call.methodCall()) }
        }
        let bindGetter = { [unowned self] (getter: @escaping Getter) -> ExportedInterface.Getter in
            { [unowned self] (_: String) throws(CallFailure) -> OpaquePointer in getter(self) }
        }
        return (
            try ExportedInterface(
                interfaces.item, methods: Self.itemMethods.map(bindMethod),
                properties: Self.itemProperties.map(bindGetter)),
            try ExportedInterface(
                interfaces.menu, methods: Self.menuMethods.map(bindMethod),
                properties: Self.menuProperties.map(bindGetter)))
    }

    func exportObjects() throws(DaemonError) -> [ExportedObject] {
        let exported = try exportedInterfaces()
        return [
            try ExportedObject(on: context.connection, path: TrayInterfaces.itemPath, [exported.item]),
            try ExportedObject(on: context.connection, path: TrayInterfaces.menuPath, [exported.menu]),
        ]
    }

    // MARK: The menu's calls

    private func getLayout(_ call: MethodCall) {
        let id = call.int32(0)
        guard let entry = menu.entry(id) else { return TrayOutput.unknownItem(call, id) }
        let layout = menu.layout(of: entry, depth: call.int32(1), Set(Variant.stringsChild(call.parameters, 2)))
        call.reply(Variant.tuple([g_variant_new_uint32(menu.revision), layout]))
    }

    private func getGroupProperties(_ call: MethodCall) {
        let ids = TrayOutput.int32s(call.child(0))
        let wanted = Set(Variant.stringsChild(call.parameters, 1))
        let properties = Variant.container("a(ia{sv})") { builder in
            for id in ids {
                guard let entry = menu.entry(id) else { continue }
                Variant.add(builder, Variant.tuple([g_variant_new_int32(id), menu.properties(of: entry, wanted)]))
            }
        }
        call.reply(Variant.tuple([properties]))
    }

    private func getProperty(_ call: MethodCall) {
        let id = call.int32(0)
        let name = call.string(1)
        guard let entry = menu.entry(id) else { return TrayOutput.unknownItem(call, id) }
        let properties = menu.properties(of: entry, [name])
        g_variant_ref_sink(properties)
        defer { g_variant_unref(properties) }
        guard let value = Variant.lookup(properties, name) else {
            return call.fail("org.freedesktop.DBus.Error.InvalidArgs", "menu item \(id) has no property \(name)")
        }
        call.reply(Variant.tuple([g_variant_new_variant(value)]))
        g_variant_unref(value)
    }

    /// The reply waits for the sender's identity (the invocation is ours until answered).
    private func event(_ call: MethodCall) {
        let id = call.int32(0)
        guard menu.entry(id) != nil else { return TrayOutput.unknownItem(call, id) }
        let eventID = call.string(1)
        context.withIdentity(of: call.sender.uniqueName) { [weak self] client in
            if let error = self?.clicked(id, eventID, by: client) { return call.reply(error) }
            call.reply(nil)
        }
    }

    /// Each event of `a(isvu)`; the ids that name no item come back, and if none did, an error.
    private func eventGroup(_ call: MethodCall) {
        let events = call.child(0)
        defer { g_variant_unref(events) }
        var unknown: [Int32] = []
        var known: [(id: Int32, eventID: String)] = []
        for (id, eventID) in Variant.mapChildren(events, { (Variant.int32Child($0, 0), Variant.stringChild($0, 1)) }) {
            if menu.entry(id) == nil { unknown.append(id) } else { known.append((id, eventID)) }
        }
        if known.isEmpty && !unknown.isEmpty { return TrayOutput.unknownItem(call, unknown[0]) }
        context.withIdentity(of: call.sender.uniqueName) { [weak self] client in
            for event in known { _ = self?.clicked(event.id, event.eventID, by: client) }
            call.reply(Variant.tuple([TrayOutput.int32Array(unknown)]))
        }
    }

    /// A click on Pause, Resume or Cancel: the request enters the front door through the
    /// tray bridge, with the rights of the host that sent it (the user's panel: the host's).
    private func clicked(_ id: Int32, _ eventID: String, by client: ClientID) -> ProgressError? {
        guard eventID == "clicked", let entry = menu.entry(id), entry.enabled, let request = entry.request else {
            return nil
        }
        return context.perform(request, by: .bridge(TrayInterfaces.bridge, client))
    }

    private static func unknownItem(_ call: MethodCall, _ id: Int32) {
        call.fail("org.freedesktop.DBus.Error.InvalidArgs", "the menu has no item \(id)")
    }

    /// The numbers of an `ai`, which is released.
    private static func int32s(_ array: OpaquePointer) -> [Int32] {
        defer { g_variant_unref(array) }
        return Variant.mapChildren(array) { g_variant_get_int32($0) }
    }

    private static func int32Array(_ values: [Int32]) -> OpaquePointer {
        Variant.container("ai") { builder in for value in values { Variant.add(builder, g_variant_new_int32(value)) } }
    }
}
