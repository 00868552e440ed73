import CGLib
import ProgressBus

/// GVariant building and the asynchronous D-Bus calls the export makes, in one place.
/// ProgressBus keeps its helpers internal, so this module has its own few.
/// Every builder returns a floating reference, for a tuple, a builder or a reply.
enum AtspiCalls {
    static func string(_ text: String) -> OpaquePointer { g_variant_new_string(text) }

    static func tuple(_ items: [OpaquePointer]) -> OpaquePointer {
        var items = items.map { Optional($0) }
        return g_variant_new_tuple(&items, gsize(items.count))
    }

    /// An object reference, `(so)`: a bus name and an object path.
    static func reference(_ busName: String, _ path: String) -> OpaquePointer {
        tuple([g_variant_new_string(busName), g_variant_new_object_path(path)])
    }

    static func container(_ type: String, _ fill: (UnsafeMutablePointer<GVariantBuilder>) -> Void) -> OpaquePointer {
        // The type string must outlive the call that reads it: a String passed straight to
        // shim_variant_type is a temporary freed once the shim returns its pointer.
        let builder = type.withCString { g_variant_builder_new(shim_variant_type($0)) }!
        fill(builder)
        let result = g_variant_builder_end(builder)!
        g_variant_builder_unref(builder)
        return result
    }

    static func strings(_ values: [String]) -> OpaquePointer {
        container("as") { builder in for value in values { g_variant_builder_add_value(builder, g_variant_new_string(value)) } }
    }

    static func words(_ values: [UInt32]) -> OpaquePointer {
        container("au") { builder in for value in values { g_variant_builder_add_value(builder, g_variant_new_uint32(value)) } }
    }

    static func emptyProperties() -> OpaquePointer { container("a{sv}") { _ in } }

    /// The string child `index` of a tuple (s, o or g); "" for any other type, so that a
    /// peer's odd reply is dropped rather than trusted.
    static func stringChild(_ tuple: OpaquePointer, _ index: Int) -> String {
        guard Int(g_variant_n_children(tuple)) > index, let child = g_variant_get_child_value(tuple, gsize(index)) else { return "" }
        defer { g_variant_unref(child) }
        let type = String(cString: g_variant_get_type_string(child))
        guard type == "s" || type == "o" || type == "g" else { return "" }
        return String(cString: g_variant_get_string(child, nil))
    }

    static func typeString(_ value: OpaquePointer) -> String { String(cString: g_variant_get_type_string(value)) }

    /// A GError's message, which it frees.
    static func message(_ error: UnsafeMutablePointer<GError>?) -> String {
        guard let error else { return "unknown error" }
        defer { g_error_free(error) }
        return String(cString: error.pointee.message)
    }

    /// A method call whose reply comes back on the main loop: never a synchronous call to
    /// another peer, so a registry or launcher that hangs can not stall the session-bus
    /// service. `autoStart` lets the bus activate the destination (the registry is started
    /// on the accessibility bus by the first call to it). `completion` gets the reply (which it must not unref) or the error text.
    static func call(
        _ connection: OpaquePointer, _ destination: String, _ path: String, _ interface: String, _ method: String,
        _ parameters: OpaquePointer?, replyType: String?, timeoutMilliseconds: Int32 = 5000, autoStart: Bool = false,
        _ completion: @escaping (OpaquePointer?, String) -> Void
    ) {
        let box = Unmanaged.passRetained(CallCompletion(completion)).toOpaque()
        // GDBus copies the reply type, so a pointer valid for the call is enough.
        let type = replyType.map { g_variant_type_new($0) } ?? nil
        defer { if let type { g_variant_type_free(type) } }
        g_dbus_connection_call(
            connection, destination, path, interface, method, parameters, type,
            autoStart ? G_DBUS_CALL_FLAGS_NONE : G_DBUS_CALL_FLAGS_NO_AUTO_START, timeoutMilliseconds, nil,
            { source, result, box in
                assertOnMainLoop()
                let completion = Unmanaged<CallCompletion>.fromOpaque(box!).takeRetainedValue()
                var error: UnsafeMutablePointer<GError>?
                let reply = g_dbus_connection_call_finish(OpaquePointer(source), result, &error)
                if let reply {
                    completion.action(reply, "")
                    g_variant_unref(reply)
                } else {
                    completion.action(nil, AtspiCalls.message(error))
                }
            },
            box)
    }

    /// A one-shot GLib timer; `action` runs on the main loop. Returns the source id.
    static func timer(milliseconds: UInt32, _ action: @escaping () -> Void) -> UInt32 {
        let box = Unmanaged.passRetained(CallCompletion { _, _ in action() }).toOpaque()
        return g_timeout_add_full(G_PRIORITY_DEFAULT, milliseconds, { box in
            assertOnMainLoop()
            Unmanaged<CallCompletion>.fromOpaque(box!).takeUnretainedValue().action(nil, "")
            return 0 // G_SOURCE_REMOVE
        }, box, { box in Unmanaged<CallCompletion>.fromOpaque(box!).release() })
    }
}

/// A Swift closure carried through a C callback's user_data.
final class CallCompletion {
    let action: (OpaquePointer?, String) -> Void
    init(_ action: @escaping (OpaquePointer?, String) -> Void) { self.action = action }
}
