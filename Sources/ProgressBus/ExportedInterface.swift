import CGLib
import Glibc

/// One D-Bus interface as exported objects serve it: its description from the embedded
/// XML, a MethodTable for its methods, a PropertyTable of getters (and one of setters for
/// its writable properties). Every incoming call, property reads included, is a row here:
/// the tables are checked against the XML when the interface is made, so an object whose
/// rows and XML differ is never exported (the service refuses to start, naming them).
///
/// Objects are registered with `ExportedObject` or `ExportedSubtree`; one interface may
/// serve any number of objects (its handlers tell them apart by the call's path).
/// The registration gives GDBus no property callbacks, so GDBus hands
/// org.freedesktop.DBus.Properties' Get, GetAll and Set to the method call, after checking
/// that the property exists, is readable (or writable) and a Set's value has its type.
/// Reads are answered here, in the caller's turn when `readsWait` is given: a Get then
/// waits behind its sender's earlier calls, as a method call does.
public final class ExportedInterface {
    public typealias Method = (IncomingCall) -> Void
    /// A property's value at the object of `path`, owned by the caller (floating or not), or a refusal.
    public typealias Getter = (_ path: String) throws(CallFailure) -> OpaquePointer
    /// Sets the property at the object of `path` to `value` (of the XML's type), or refuses.
    public typealias Setter = (_ path: String, _ value: OpaquePointer) throws(CallFailure) -> Void
    /// Runs `read` when the caller of `call` may read: at once, or after its earlier calls.
    public typealias ReadTurn = (_ call: IncomingCall, _ read: @escaping () -> Void) -> Void

    /// Rows in types of their own, so that a call reads its handler as it was stored
    /// (docs/performance.md lists it among the tricks kept without a figure yet).
    struct MethodRow { let run: Method }
    struct GetterRow {
        let name: String
        let get: Getter
    }

    public let name: String
    let info: UnsafeMutablePointer<GDBusInterfaceInfo>
    /// What `info` belongs to (its parsed XML), kept as long as the interface is.
    private let descriptions: AnyObject?
    /// The method infos of the rows, in the order of `methods`: GDBus hands each call its
    /// method's info, so a call finds its row by comparing pointers.
    private let methodInfos: [UnsafeRawPointer]
    private let methods: [MethodRow]
    /// In the XML's order, which GetAll answers in.
    private let getters: [GetterRow]
    private let setters: PropertyTable<Setter>
    private let readsWait: ReadTurn?

    /// Checks every table against `info` (methods, readable and writable properties, both
    /// ways) and throws, naming the difference, when one does not match.
    public init(
        _ info: UnsafeMutablePointer<GDBusInterfaceInfo>, keeping descriptions: AnyObject? = nil,
        methods: MethodTable<Method>, properties: PropertyTable<Getter>? = nil, setters: PropertyTable<Setter>? = nil,
        readsWait: ReadTurn? = nil
    ) throws(DaemonError) {
        let name = String(cString: info.pointee.name)
        for table in [methods.interface, properties?.interface, setters?.interface].compactMap({ $0 })
        where table != name {
            throw DaemonError("a table of \(table) was given for the interface \(name)")
        }
        let properties = properties ?? .none(name)
        let setters = setters ?? .none(name, access: .write)
        try methods.check(against: info)
        try properties.check(against: info)
        try setters.check(against: info)
        self.name = name
        self.info = info
        self.descriptions = descriptions
        let dispatch = methods.dispatch(for: info)
        methodInfos = dispatch.methods
        self.methods = dispatch.handlersInOrder.map(MethodRow.init)
        getters = PropertyTable<Getter>.declaredInOrder(.read, in: info)
            .map { GetterRow(name: $0, get: properties[$0]!) }
        self.setters = setters
        self.readsWait = readsWait
    }

    /// Where GDBus's one callback for every exported interface lands.
    func receive(_ call: IncomingCall) {
        if let method = g_dbus_method_invocation_get_method_info(call.invocation) {
            if let index = methodInfos.firstIndex(of: UnsafeRawPointer(method)) { return methods[index].run(call) }
            // GDBus checked the method against `info` and every method of it has a row.
            return call.fail(CallFailure(
                "org.freedesktop.DBus.Error.UnknownMethod",
                "no method \(String(cString: method.pointee.name)) on \(name)"))
        }
        // No method info: org.freedesktop.DBus.Properties, whose property GDBus has checked.
        let member = g_dbus_method_invocation_get_method_name(call.invocation)!
        if strcmp(member, "Get") == 0 {
            let property = Variant.stringChild(call.parameters, 1)
            inTurn(call) { [self] in get(property, call) }
        } else if strcmp(member, "GetAll") == 0 {
            inTurn(call) { [self] in getAll(call) }
        } else if strcmp(member, "Set") == 0 {
            set(call)
        } else {
            call.fail(CallFailure(
                "org.freedesktop.DBus.Error.UnknownMethod", "no method \(String(cString: member)) on \(name)"))
        }
    }

    private func inTurn(_ call: IncomingCall, _ read: @escaping () -> Void) {
        if let readsWait { readsWait(call, read) } else { read() }
    }

    private func get(_ property: String, _ call: IncomingCall) {
        guard let row = getters.first(where: { $0.name == property }) else {
            return call.fail(CallFailure(
                "org.freedesktop.DBus.Error.InvalidArgs", "\(name) has no readable property \(property)"))
        }
        do throws(CallFailure) {
            let value = try row.get(call.path)
            g_dbus_method_invocation_return_value(call.invocation, Variant.tuple([Self.boxed(value)]))
        } catch {
            call.fail(error)
        }
    }

    private func getAll(_ call: IncomingCall) {
        let path = call.path
        var values: [(name: String, value: OpaquePointer)] = []
        do throws(CallFailure) {
            for row in getters { values.append((row.name, Self.boxed(try row.get(path)))) }
        } catch {
            for entry in values { g_variant_unref(g_variant_ref_sink(entry.value)) }
            return call.fail(error)
        }
        let all = Variant.container("a{sv}") { builder in
            for entry in values {
                g_variant_builder_add_value(
                    builder, g_variant_new_dict_entry(g_variant_new_string(entry.name), entry.value))
            }
        }
        g_dbus_method_invocation_return_value(call.invocation, Variant.tuple([all]))
    }

    private func set(_ call: IncomingCall) {
        let property = Variant.stringChild(call.parameters, 1)
        guard let setter = setters[property] else {
            return call.fail(.readOnly("\(name).\(property) can not be set"))
        }
        let boxed = g_variant_get_child_value(call.parameters, 2)!
        let value = g_variant_get_variant(boxed)!
        defer {
            g_variant_unref(value)
            g_variant_unref(boxed)
        }
        do throws(CallFailure) {
            try setter(call.path, value)
            g_dbus_method_invocation_return_value(call.invocation, g_variant_new_tuple(nil, 0))
        } catch {
            call.fail(error)
        }
    }

    /// A getter's value in a `v`, which owns it: a getter hands over its reference, floating
    /// or not, as GDBus's own get_property does.
    private static func boxed(_ value: OpaquePointer) -> OpaquePointer {
        g_variant_take_ref(value)
        let boxed = g_variant_new_variant(value)!
        g_variant_unref(value)
        return boxed
    }

    /// The one vtable every exported interface is registered with; `user_data` is the
    /// ExportedInterface, which its registration keeps. No get_property or set_property:
    /// property calls come to `receive` too. GDBus copies the vtable when it registers.
    /// Written once, then only read, on the main loop.
    nonisolated(unsafe) static let vtable: UnsafeMutablePointer<GDBusInterfaceVTable> = {
        let vtable = UnsafeMutablePointer<GDBusInterfaceVTable>.allocate(capacity: 1)
        vtable.initialize(to: GDBusInterfaceVTable(
            method_call: { _, sender, path, _, _, parameters, invocation, userData in
                assertOnMainLoop()
                Unmanaged<ExportedInterface>.fromOpaque(userData!).takeUnretainedValue().receive(
                    IncomingCall(sender: sender, path: path!, parameters: parameters!, invocation: invocation!))
            },
            get_property: nil, set_property: nil, padding: (nil, nil, nil, nil, nil, nil, nil, nil)))
        return vtable
    }()
}

extension MethodTable {
    /// The same rows with each handler transformed, such as bound to the object that serves them.
    public func map<Other>(_ transform: (Handler) -> Other) -> MethodTable<Other> {
        MethodTable<Other>(interface: interface, methodNames.sorted().map { ($0, transform(self[$0]!)) })
    }
}

extension PropertyTable {
    /// The same rows with each accessor transformed.
    public func map<Other>(_ transform: (Accessor) -> Other) -> PropertyTable<Other> {
        PropertyTable<Other>(interface: interface, access: access, rows.map { ($0.name, transform($0.accessor)) })
    }
}
