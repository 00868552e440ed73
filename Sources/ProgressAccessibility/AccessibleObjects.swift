import CGLib
import ProgressBus
import ProgressModel
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
    fileprivate unowned let model: AccessibleModel
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

    fileprivate var tree: AccessibleTree { model.tree }

    fileprivate func reference(_ name: TaskName?) -> OpaquePointer { Variant.reference(busName, tree.path(of: name)) }

    // MARK: Methods

    /// The object a call or a read is for: the root, or a bar (its task), and the read that
    /// answers it.
    struct Target {
        let name: TaskName?
        let look: AccessibleLook
        var isRoot: Bool { name == nil }
    }

    typealias Handler = @Sendable (AccessibleObjects, Target, MethodCall) -> Void

    /// A method call on the root or a bar, answered within one read of the daemon's tasks
    /// (the values it holds applied first); a path that names no bar (any more) is refused
    /// with UnknownObject.
    func serve(_ handler: Handler, _ call: MethodCall) {
        model.read { look in
            let path = call.path
            let name = tree.task(atPath: path)
            guard path == AccessibleTree.rootPath || name != nil else {
                return call.fail("org.freedesktop.DBus.Error.UnknownObject", "no accessible object at \(path)")
            }
            handler(self, Target(name: name, look: look), call)
        }
    }

    static let accessibleMethods = MethodTable<Handler>(interface: AtspiInterfaces.accessible, [
        ("GetChildAtIndex", { objects, target, call in
            let index = Int(call.int32(0))
            let children = objects.tree.children(of: target.name)
            guard children.indices.contains(index) else {
                return call.fail(
                    "org.freedesktop.DBus.Error.InvalidArgs", "no child \(index); there are \(children.count)")
            }
            call.reply(Variant.tuple([objects.reference(children[index])]))
        }),
        ("GetChildren", { objects, target, call in
            let children = objects.tree.children(of: target.name)
            call.reply(Variant.tuple([Variant.container("a(so)") { builder in
                for child in children { g_variant_builder_add_value(builder, objects.reference(child)) }
            }]))
        }),
        ("GetIndexInParent", { objects, target, call in
            call.reply(Variant.tuple([
                g_variant_new_int32(Int32(target.name.flatMap { objects.tree.place(of: $0)?.index } ?? -1)),
            ]))
        }),
        ("GetRelationSet", { _, _, call in call.reply(Variant.tuple([Variant.container("a(ua(so))") { _ in }])) }),
        ("GetRole", { _, target, call in
            call.reply(Variant.tuple([
                g_variant_new_uint32(target.isRoot ? AccessibleBar.Role.application : AccessibleBar.Role.progressBar),
            ]))
        }),
        // at-spi2-core's role names; a screen reader localizes them itself from the role.
        ("GetRoleName", { _, target, call in
            call.reply(Variant.tuple([Variant.string(target.isRoot ? "application" : "progress bar")]))
        }),
        ("GetLocalizedRoleName", { _, target, call in
            call.reply(Variant.tuple([Variant.string(target.isRoot ? "application" : "progress bar")]))
        }),
        ("GetState", { objects, target, call in
            let words = target.name.map { target.look.bar($0)?.stateWords ?? [0, 0] }
                ?? AccessibleBar.words(AccessibleBar.rootStates)
            call.reply(Variant.tuple([Variant.words(words)]))
        }),
        ("GetAttributes", { objects, target, call in
            let attributes = target.name.map { target.look.bar($0)?.attributes ?? [] } ?? [("toolkit", "progressd")]
            call.reply(Variant.tuple([Variant.container("a{ss}") { builder in
                for (key, value) in attributes {
                    g_variant_builder_add_value(
                        builder, g_variant_new_dict_entry(Variant.string(key), Variant.string(value)))
                }
            }]))
        }),
        ("GetApplication", { objects, _, call in
            call.reply(Variant.tuple([Variant.reference(objects.busName, AccessibleTree.rootPath)]))
        }),
        ("GetInterfaces", { _, target, call in
            call.reply(Variant.tuple([
                Variant.strings(target.isRoot ? AccessibleBar.rootInterfaces : AccessibleBar.interfaces),
            ]))
        }),
    ])

    static let applicationMethods = MethodTable<Handler>(interface: AtspiInterfaces.application, [
        ("GetLocale", { objects, _, call in call.reply(Variant.tuple([Variant.string(objects.model.locale)])) }),
        // No private peer-to-peer bus: libatspi takes the error and stays on this one.
        ("GetApplicationBusAddress", { _, _, call in
            call.fail("org.freedesktop.DBus.Error.NotSupported", "progressd has no application bus")
        }),
    ])

    static let componentMethods = MethodTable<Handler>(interface: AtspiInterfaces.component, [
        ("GetExtents", { objects, target, call in
            let box = objects.extents(target)
            call.reply(Variant.tuple([Variant.tuple([
                g_variant_new_int32(box.x), g_variant_new_int32(box.y),
                g_variant_new_int32(box.width), g_variant_new_int32(box.height),
            ])]))
        }),
        ("GetPosition", { objects, target, call in
            let box = objects.extents(target)
            call.reply(Variant.tuple([g_variant_new_int32(box.x), g_variant_new_int32(box.y)]))
        }),
        ("GetSize", { objects, target, call in
            let box = objects.extents(target)
            call.reply(Variant.tuple([g_variant_new_int32(box.width), g_variant_new_int32(box.height)]))
        }),
        ("GetLayer", { _, _, call in call.reply(Variant.tuple([g_variant_new_uint32(3)])) }), // WIDGET
    ])

    private func extents(_ target: Target) -> (x: Int32, y: Int32, width: Int32, height: Int32) {
        AccessibleBar.extents(index: target.name.flatMap { tree.place(of: $0)?.index } ?? 0)
    }

    static let cacheMethods = MethodTable<@Sendable (AccessibleObjects, MethodCall) -> Void>(
        interface: AtspiInterfaces.cacheName, [("GetItems", { $0.cacheItems($1) })])

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

    /// What a property is read from: the root, or a bar and the export's look at its task.
    enum Node {
        case root
        case bar(TaskName, AccessibleBar)
    }

    /// The object at `path`, as a read of the daemon's tasks shows it; UnknownObject
    /// for a path that names no bar (any more).
    func node(at path: String) throws(CallFailure) -> Node {
        let node: Node? = model.read { look in
            if path == AccessibleTree.rootPath { return .root }
            guard let name = tree.task(atPath: path), let bar = look.bar(name) else { return nil }
            return .bar(name, bar)
        }
        guard let node else { throw .unknownObject("no accessible object at \(path)") }
        return node
    }

    typealias Getter = @Sendable (AccessibleObjects, Node) -> OpaquePointer

    static let accessibleProperties = PropertyTable<Getter>(interface: AtspiInterfaces.accessible, [
        ("Name", { objects, node in
            guard case .bar(_, let bar) = node else { return Variant.string(objects.model.applicationName) }
            return Variant.string(bar.name)
        }),
        ("Description", { _, node in
            guard case .bar(_, let bar) = node else { return Variant.string("") }
            return Variant.string(bar.description)
        }),
        ("Parent", { objects, node in
            guard case .bar(let name, _) = node else {
                return Variant.reference(objects.registryReference.0, objects.registryReference.1)
            }
            return objects.reference(objects.tree.bar(name)?.parent)
        }),
        ("ChildCount", { objects, node in
            guard case .bar(let name, _) = node else {
                return g_variant_new_int32(Int32(objects.tree.rootChildren.count))
            }
            return g_variant_new_int32(Int32(objects.tree.children(of: name).count))
        }),
        ("Locale", { objects, _ in Variant.string(objects.model.locale) }),
        ("AccessibleId", { _, node in
            guard case .bar(let name, _) = node else { return Variant.string("") }
            return Variant.string(name.text)
        }),
    ])

    /// The root's alone: no bar serves Application.
    static let applicationProperties = PropertyTable<Getter>(interface: AtspiInterfaces.application, [
        ("ToolkitName", { _, _ in Variant.string("progressd") }),
        ("Version", { objects, _ in Variant.string(objects.model.version) }),
        ("AtspiVersion", { _, _ in Variant.string("2.1") }),
        ("Id", { objects, _ in g_variant_new_int32(objects.applicationID) }),
    ])

    /// The bars' alone: the root does not serve Value, so its values here are never read.
    static let valueProperties = PropertyTable<Getter>(interface: AtspiInterfaces.value, [
        ("MinimumValue", { _, _ in g_variant_new_double(AccessibleBar.minimum) }),
        ("MaximumValue", { _, _ in g_variant_new_double(AccessibleBar.maximum) }),
        ("MinimumIncrement", { _, _ in g_variant_new_double(0) }),
        ("CurrentValue", { _, node in
            guard case .bar(_, let bar) = node else { return g_variant_new_double(AccessibleBar.minimum) }
            return g_variant_new_double(bar.current)
        }),
        ("Text", { _, node in
            guard case .bar(_, let bar) = node else { return Variant.string("") }
            return Variant.string(bar.valueText)
        }),
    ])

    typealias Setter = @Sendable (AccessibleObjects, String, OpaquePointer) throws(CallFailure) -> Void

    /// Only the root's Id is set (the registry sets it inside Embed).
    static let applicationSetters = PropertyTable<Setter>(interface: AtspiInterfaces.application, access: .write, [
        ("Id", { objects, path, value throws(CallFailure) in
            guard path == AccessibleTree.rootPath else { throw .unknownObject("no application at \(path)") }
            objects.applicationID = g_variant_get_int32(value)
        }),
    ])

    /// CurrentValue is writable in the XML, as in at-spi2-core's, but a bar reports a job: it refuses.
    static let valueSetters = PropertyTable<Setter>(interface: AtspiInterfaces.value, access: .write, [
        ("CurrentValue", { _, _, _ throws(CallFailure) in
            throw .readOnly("CurrentValue reports a job and can not be set")
        }),
    ])
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
