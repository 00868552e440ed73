import CGLib
import ProgressCore

/// What the objects are answered from: the export's tree and its look at each task.
protocol AccessibleModel: AnyObject {
    var tree: AccessibleTree { get }
    func look(_ name: TaskName) -> AccessibleBar?
    /// The application's name, in the daemon's locale.
    var applicationName: String { get }
    var locale: String { get }
    var version: String { get }
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

    private func reference(_ name: TaskName?) -> OpaquePointer { AtspiCalls.reference(busName, tree.path(of: name)) }

    // MARK: Methods

    func call(path: String, interface: String, method: String, parameters: OpaquePointer, invocation: OpaquePointer) {
        let isRoot = path == AccessibleTree.rootPath
        let name = tree.task(atPath: path)
        guard isRoot || name != nil else {
            return fail(invocation, "org.freedesktop.DBus.Error.UnknownObject", "no accessible object at \(path)")
        }
        let reply: OpaquePointer?
        switch (interface, method) {
        case ("org.a11y.atspi.Accessible", "GetChildAtIndex"):
            let index = Int(int32Child(parameters, 0))
            let children = tree.children(of: name)
            guard children.indices.contains(index) else {
                return fail(invocation, "org.freedesktop.DBus.Error.InvalidArgs",
                            "no child \(index); there are \(children.count)")
            }
            reply = AtspiCalls.tuple([reference(children[index])])
        case ("org.a11y.atspi.Accessible", "GetChildren"):
            let children = tree.children(of: name)
            reply = AtspiCalls.tuple([AtspiCalls.container("a(so)") { builder in
                for child in children { g_variant_builder_add_value(builder, reference(child)) }
            }])
        case ("org.a11y.atspi.Accessible", "GetIndexInParent"):
            reply = AtspiCalls.tuple([g_variant_new_int32(Int32(name.flatMap { tree.place(of: $0)?.index } ?? -1))])
        case ("org.a11y.atspi.Accessible", "GetRelationSet"):
            reply = AtspiCalls.tuple([AtspiCalls.container("a(ua(so))") { _ in }])
        case ("org.a11y.atspi.Accessible", "GetRole"):
            reply = AtspiCalls.tuple([g_variant_new_uint32(isRoot ? AccessibleBar.Role.application : AccessibleBar.Role.progressBar)])
        case ("org.a11y.atspi.Accessible", "GetRoleName"), ("org.a11y.atspi.Accessible", "GetLocalizedRoleName"):
            // at-spi2-core's role names; a screen reader localizes them itself from the role.
            reply = AtspiCalls.tuple([AtspiCalls.string(isRoot ? "application" : "progress bar")])
        case ("org.a11y.atspi.Accessible", "GetState"):
            let words = isRoot ? AccessibleBar.words(AccessibleBar.rootStates) : model.look(name!)?.stateWords ?? [0, 0]
            reply = AtspiCalls.tuple([AtspiCalls.words(words)])
        case ("org.a11y.atspi.Accessible", "GetAttributes"):
            let attributes = isRoot ? [("toolkit", "progressd")] : model.look(name!)?.attributes ?? []
            reply = AtspiCalls.tuple([AtspiCalls.container("a{ss}") { builder in
                for (key, value) in attributes {
                    g_variant_builder_add_value(builder, g_variant_new_dict_entry(AtspiCalls.string(key), AtspiCalls.string(value)))
                }
            }])
        case ("org.a11y.atspi.Accessible", "GetApplication"):
            reply = AtspiCalls.tuple([AtspiCalls.reference(busName, AccessibleTree.rootPath)])
        case ("org.a11y.atspi.Accessible", "GetInterfaces"):
            reply = AtspiCalls.tuple([AtspiCalls.strings(isRoot ? AccessibleBar.rootInterfaces : AccessibleBar.interfaces)])
        case ("org.a11y.atspi.Application", "GetLocale"):
            reply = AtspiCalls.tuple([AtspiCalls.string(model.locale)])
        case ("org.a11y.atspi.Application", "GetApplicationBusAddress"):
            // No private peer-to-peer bus: libatspi takes the error and stays on this one.
            return fail(invocation, "org.freedesktop.DBus.Error.NotSupported", "progressd has no application bus")
        case ("org.a11y.atspi.Component", _):
            let index = name.flatMap { tree.place(of: $0)?.index } ?? 0
            let box = AccessibleBar.extents(index: index)
            switch method {
            case "GetExtents":
                reply = AtspiCalls.tuple([AtspiCalls.tuple([
                    g_variant_new_int32(box.x), g_variant_new_int32(box.y), g_variant_new_int32(box.width), g_variant_new_int32(box.height),
                ])])
            case "GetPosition": reply = AtspiCalls.tuple([g_variant_new_int32(box.x), g_variant_new_int32(box.y)])
            case "GetSize": reply = AtspiCalls.tuple([g_variant_new_int32(box.width), g_variant_new_int32(box.height)])
            default: reply = AtspiCalls.tuple([g_variant_new_uint32(3)]) // GetLayer: WIDGET
            }
        default:
            return fail(invocation, "org.freedesktop.DBus.Error.UnknownMethod", "no method \(interface).\(method) at \(path)")
        }
        g_dbus_method_invocation_return_value(invocation, reply)
    }

    /// Cache.GetItems: the whole tree, so libatspi fills its cache in one call.
    func cacheItems(invocation: OpaquePointer) {
        let items = AtspiCalls.container("a((so)(so)(so)iiassusau)") { builder in
            g_variant_builder_add_value(builder, rootItem())
            for name in tree.depthFirst {
                guard let bar = model.look(name), let place = tree.place(of: name) else { continue }
                g_variant_builder_add_value(builder, item(name, bar, index: place.index))
            }
        }
        g_dbus_method_invocation_return_value(invocation, AtspiCalls.tuple([items]))
    }

    private func rootItem() -> OpaquePointer {
        AtspiCalls.tuple([
            reference(nil), reference(nil), AtspiCalls.reference(registryReference.0, registryReference.1),
            g_variant_new_int32(-1), g_variant_new_int32(Int32(tree.rootChildren.count)),
            AtspiCalls.strings(AccessibleBar.rootInterfaces), AtspiCalls.string(model.applicationName),
            g_variant_new_uint32(AccessibleBar.Role.application), AtspiCalls.string(""),
            AtspiCalls.words(AccessibleBar.words(AccessibleBar.rootStates)),
        ])
    }

    /// One cache item: self, application, parent, index, child count, interfaces, name,
    /// role, description, states.
    func item(_ name: TaskName, _ bar: AccessibleBar, index: Int) -> OpaquePointer {
        AtspiCalls.tuple([
            reference(name), reference(nil), reference(tree.bar(name)?.parent),
            g_variant_new_int32(Int32(index)), g_variant_new_int32(Int32(tree.children(of: name).count)),
            AtspiCalls.strings(AccessibleBar.interfaces), AtspiCalls.string(bar.name),
            g_variant_new_uint32(AccessibleBar.Role.progressBar), AtspiCalls.string(bar.description),
            AtspiCalls.words(bar.stateWords),
        ])
    }

    // MARK: Properties

    func property(path: String, interface: String, property: String) -> OpaquePointer? {
        if path == AccessibleTree.rootPath {
            switch property {
            case "Name": return AtspiCalls.string(model.applicationName)
            case "Description", "AccessibleId": return AtspiCalls.string("")
            case "Parent": return AtspiCalls.reference(registryReference.0, registryReference.1)
            case "ChildCount": return g_variant_new_int32(Int32(tree.rootChildren.count))
            case "Locale": return AtspiCalls.string(model.locale)
            case "ToolkitName": return AtspiCalls.string("progressd")
            case "Version": return AtspiCalls.string(model.version)
            case "AtspiVersion": return AtspiCalls.string("2.1")
            case "Id": return g_variant_new_int32(applicationID)
            default: return nil
            }
        }
        guard let name = tree.task(atPath: path), let bar = model.look(name) else { return nil }
        switch property {
        case "Name": return AtspiCalls.string(bar.name)
        case "Description": return AtspiCalls.string(bar.description)
        case "Parent": return reference(tree.bar(name)?.parent)
        case "ChildCount": return g_variant_new_int32(Int32(tree.children(of: name).count))
        case "Locale": return AtspiCalls.string(model.locale)
        case "AccessibleId": return AtspiCalls.string(name.text)
        case "MinimumValue": return g_variant_new_double(AccessibleBar.minimum)
        case "MaximumValue": return g_variant_new_double(AccessibleBar.maximum)
        case "MinimumIncrement": return g_variant_new_double(0)
        case "CurrentValue": return g_variant_new_double(bar.current)
        case "Text": return AtspiCalls.string(bar.valueText)
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

    // MARK: Helpers

    private func fail(_ invocation: OpaquePointer, _ error: String, _ message: String) {
        g_dbus_method_invocation_return_dbus_error(invocation, error, message)
    }

    private func int32Child(_ tuple: OpaquePointer, _ index: Int) -> Int32 {
        let child = g_variant_get_child_value(tuple, gsize(index))!
        defer { g_variant_unref(child) }
        return g_variant_get_int32(child)
    }
}

extension AccessibleObjects {
    /// The subtree's node names: the root and every bar.
    var nodeNames: [String] { model.tree.nodeNames }

    func hasBar(atNode node: String) -> Bool { model.tree.task(atNode: Substring(node)) != nil }
}
