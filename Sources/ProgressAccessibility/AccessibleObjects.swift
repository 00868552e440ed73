import CGLib
import ProgressBus
import ProgressCore

/// What the objects are answered from: the export's tree and its look at each task.
protocol AccessibleModel: AnyObject {
    var tree: AccessibleTree { get }
    /// A client reads: `body` looks at the bars as a read of the daemon's tasks shows them
    /// (`TaskFrontDoor.read`: the values the daemon holds applied first), so that a screen
    /// reader polling a bar, or filling its cache, hears its newest value.
    func read<Result>(_ body: (AccessibleLook) -> Result) -> Result
    /// The application's name, in the daemon's locale.
    var applicationName: String { get }
    var locale: String { get }
    var version: String { get }
}

/// The bars as one read of the tasks shows them, in the daemon's texts.
struct AccessibleLook {
    let tasks: TaskView
    let texts: TaskDescribing

    func bar(_ name: TaskName) -> AccessibleBar? { tasks.task(name).map { AccessibleBar($0, texts: texts) } }
}

/// The answers of the root (Accessible, Application), of each bar (Accessible, Value,
/// Component) and of the Cache, on one accessibility-bus connection. GDBus has already
/// checked each call's signature against org.a11y.atspi.xml; a call for an object that
/// does not exist never gets here (the subtree dispatch refuses it with UnknownObject).
final class AccessibleObjects {
    private unowned let model: AccessibleModel
    /// Our unique name on the accessibility bus: the bus-name half of every reference.
    let busName: String
    /// The registry's root, the root's Parent, from the Embed reply.
    var registryReference = ("", AccessibleTree.nullPath)
    /// The id the registry set on the root.
    var applicationID: Int32 = 0

    init(model: AccessibleModel, busName: String) {
        self.model = model
        self.busName = busName
    }

    private var tree: AccessibleTree { model.tree }

    private func reference(_ name: TaskName?) -> OpaquePointer { Variant.reference(busName, tree.path(of: name)) }

    // MARK: Methods

    func call(interface: String, method: String, _ call: MethodCall) {
        model.read { answer(interface: interface, method: method, call, $0) }
    }

    private func answer(interface: String, method: String, _ call: MethodCall, _ look: AccessibleLook) {
        let path = call.path
        let isRoot = path == AccessibleTree.rootPath
        let name = tree.task(atPath: path)
        guard isRoot || name != nil else {
            return call.fail("org.freedesktop.DBus.Error.UnknownObject", "no accessible object at \(path)")
        }
        let reply: OpaquePointer?
        switch (interface, method) {
        case ("org.a11y.atspi.Accessible", "GetChildAtIndex"):
            let index = Int(call.int32(0))
            let children = tree.children(of: name)
            guard children.indices.contains(index) else {
                return call.fail("org.freedesktop.DBus.Error.InvalidArgs",
                            "no child \(index); there are \(children.count)")
            }
            reply = Variant.tuple([reference(children[index])])
        case ("org.a11y.atspi.Accessible", "GetChildren"):
            let children = tree.children(of: name)
            reply = Variant.tuple([Variant.container("a(so)") { builder in
                for child in children { g_variant_builder_add_value(builder, reference(child)) }
            }])
        case ("org.a11y.atspi.Accessible", "GetIndexInParent"):
            reply = Variant.tuple([g_variant_new_int32(Int32(name.flatMap { tree.place(of: $0)?.index } ?? -1))])
        case ("org.a11y.atspi.Accessible", "GetRelationSet"):
            reply = Variant.tuple([Variant.container("a(ua(so))") { _ in }])
        case ("org.a11y.atspi.Accessible", "GetRole"):
            reply = Variant.tuple([g_variant_new_uint32(isRoot ? AccessibleBar.Role.application : AccessibleBar.Role.progressBar)])
        case ("org.a11y.atspi.Accessible", "GetRoleName"), ("org.a11y.atspi.Accessible", "GetLocalizedRoleName"):
            // at-spi2-core's role names; a screen reader localizes them itself from the role.
            reply = Variant.tuple([Variant.string(isRoot ? "application" : "progress bar")])
        case ("org.a11y.atspi.Accessible", "GetState"):
            let words = isRoot ? AccessibleBar.words(AccessibleBar.rootStates) : look.bar(name!)?.stateWords ?? [0, 0]
            reply = Variant.tuple([Variant.words(words)])
        case ("org.a11y.atspi.Accessible", "GetAttributes"):
            let attributes = isRoot ? [("toolkit", "progressd")] : look.bar(name!)?.attributes ?? []
            reply = Variant.tuple([Variant.container("a{ss}") { builder in
                for (key, value) in attributes {
                    g_variant_builder_add_value(builder, g_variant_new_dict_entry(Variant.string(key), Variant.string(value)))
                }
            }])
        case ("org.a11y.atspi.Accessible", "GetApplication"):
            reply = Variant.tuple([Variant.reference(busName, AccessibleTree.rootPath)])
        case ("org.a11y.atspi.Accessible", "GetInterfaces"):
            reply = Variant.tuple([Variant.strings(isRoot ? AccessibleBar.rootInterfaces : AccessibleBar.interfaces)])
        case ("org.a11y.atspi.Application", "GetLocale"):
            reply = Variant.tuple([Variant.string(model.locale)])
        case ("org.a11y.atspi.Application", "GetApplicationBusAddress"):
            // No private peer-to-peer bus: libatspi takes the error and stays on this one.
            return call.fail("org.freedesktop.DBus.Error.NotSupported", "progressd has no application bus")
        case ("org.a11y.atspi.Component", _):
            let index = name.flatMap { tree.place(of: $0)?.index } ?? 0
            let box = AccessibleBar.extents(index: index)
            switch method {
            case "GetExtents":
                reply = Variant.tuple([Variant.tuple([
                    g_variant_new_int32(box.x), g_variant_new_int32(box.y), g_variant_new_int32(box.width), g_variant_new_int32(box.height),
                ])])
            case "GetPosition": reply = Variant.tuple([g_variant_new_int32(box.x), g_variant_new_int32(box.y)])
            case "GetSize": reply = Variant.tuple([g_variant_new_int32(box.width), g_variant_new_int32(box.height)])
            default: reply = Variant.tuple([g_variant_new_uint32(3)]) // GetLayer: WIDGET
            }
        default:
            return call.fail("org.freedesktop.DBus.Error.UnknownMethod", "no method \(interface).\(method) at \(path)")
        }
        call.reply(reply)
    }

    /// Cache.GetItems: the whole tree, so libatspi fills its cache in one call.
    func cacheItems(_ call: MethodCall) {
        let items = model.read { look in
            Variant.container("a((so)(so)(so)iiassusau)") { builder in
                g_variant_builder_add_value(builder, rootItem())
                for name in tree.depthFirst {
                    guard let bar = look.bar(name), let place = tree.place(of: name) else { continue }
                    g_variant_builder_add_value(builder, item(name, bar, index: place.index))
                }
            }
        }
        call.reply(Variant.tuple([items]))
    }

    private func rootItem() -> OpaquePointer {
        Variant.tuple([
            reference(nil), reference(nil), Variant.reference(registryReference.0, registryReference.1),
            g_variant_new_int32(-1), g_variant_new_int32(Int32(tree.rootChildren.count)),
            Variant.strings(AccessibleBar.rootInterfaces), Variant.string(model.applicationName),
            g_variant_new_uint32(AccessibleBar.Role.application), Variant.string(""),
            Variant.words(AccessibleBar.words(AccessibleBar.rootStates)),
        ])
    }

    /// One cache item: self, application, parent, index, child count, interfaces, name,
    /// role, description, states.
    func item(_ name: TaskName, _ bar: AccessibleBar, index: Int) -> OpaquePointer {
        Variant.tuple([
            reference(name), reference(nil), reference(tree.bar(name)?.parent),
            g_variant_new_int32(Int32(index)), g_variant_new_int32(Int32(tree.children(of: name).count)),
            Variant.strings(AccessibleBar.interfaces), Variant.string(bar.name),
            g_variant_new_uint32(AccessibleBar.Role.progressBar), Variant.string(bar.description),
            Variant.words(bar.stateWords),
        ])
    }

    // MARK: Properties

    func property(path: String, interface: String, property: String) -> OpaquePointer? {
        model.read { self.property(path: path, property: property, $0) }
    }

    private func property(path: String, property: String, _ look: AccessibleLook) -> OpaquePointer? {
        if path == AccessibleTree.rootPath {
            switch property {
            case "Name": return Variant.string(model.applicationName)
            case "Description", "AccessibleId": return Variant.string("")
            case "Parent": return Variant.reference(registryReference.0, registryReference.1)
            case "ChildCount": return g_variant_new_int32(Int32(tree.rootChildren.count))
            case "Locale": return Variant.string(model.locale)
            case "ToolkitName": return Variant.string("progressd")
            case "Version": return Variant.string(model.version)
            case "AtspiVersion": return Variant.string("2.1")
            case "Id": return g_variant_new_int32(applicationID)
            default: return nil
            }
        }
        guard let name = tree.task(atPath: path), let bar = look.bar(name) else { return nil }
        switch property {
        case "Name": return Variant.string(bar.name)
        case "Description": return Variant.string(bar.description)
        case "Parent": return reference(tree.bar(name)?.parent)
        case "ChildCount": return g_variant_new_int32(Int32(tree.children(of: name).count))
        case "Locale": return Variant.string(model.locale)
        case "AccessibleId": return Variant.string(name.text)
        case "MinimumValue": return g_variant_new_double(AccessibleBar.minimum)
        case "MaximumValue": return g_variant_new_double(AccessibleBar.maximum)
        case "MinimumIncrement": return g_variant_new_double(0)
        case "CurrentValue": return g_variant_new_double(bar.current)
        case "Text": return Variant.string(bar.valueText)
        default: return nil
        }
    }

    /// Only the root's Id is writable (the registry sets it inside Embed). CurrentValue is
    /// writable in the XML, as in at-spi2-core's, but a bar reports a job: it refuses.
    func setProperty(path: String, property: String, value: OpaquePointer, error: UnsafeMutablePointer<UnsafeMutablePointer<GError>?>?) -> Bool {
        if path == AccessibleTree.rootPath && property == "Id" {
            applicationID = g_variant_get_int32(value)
            return true
        }
        shim_set_dbus_error(error, G_DBUS_ERROR_PROPERTY_READ_ONLY, "\(property) reports a job and can not be set")
        return false
    }

}

extension AccessibleObjects {
    /// The subtree's node names: the root and every bar.
    var nodeNames: [String] { model.tree.nodeNames }

    func hasBar(atNode node: String) -> Bool { model.tree.task(atNode: Substring(node)) != nil }
}

/// The two AT-SPI shapes that are not plain strings or tuples.
extension Variant {
    /// An object reference, `(so)`: a bus name and an object path.
    static func reference(_ busName: String, _ path: String) -> OpaquePointer {
        tuple([string(busName), objectPath(path)])
    }

    /// An `au`, such as a state set.
    static func words(_ values: [UInt32]) -> OpaquePointer {
        container("au") { builder in for value in values { add(builder, g_variant_new_uint32(value)) } }
    }
}
