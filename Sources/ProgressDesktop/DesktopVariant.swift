import CGLib

/// GVariant helpers the desktop protocols need beyond ProgressBus's `Variant`: dictionaries
/// of ready values, string arrays, a{sv} entries of any type, interface XML.
enum DesktopVariant {
    /// A dictionary `a{sv}` with the values in order.
    static func dictionary(_ entries: [(String, OpaquePointer)]) -> OpaquePointer {
        let builder = g_variant_builder_new(shim_variant_type("a{sv}"))!
        for (key, value) in entries {
            g_variant_builder_add_value(builder, g_variant_new_dict_entry(g_variant_new_string(key), g_variant_new_variant(value)))
        }
        let result = g_variant_builder_end(builder)!
        g_variant_builder_unref(builder)
        return result
    }

    static func stringArray(_ items: [String]) -> OpaquePointer {
        let builder = g_variant_builder_new(shim_variant_type("as"))!
        for item in items { g_variant_builder_add_value(builder, g_variant_new_string(item)) }
        let result = g_variant_builder_end(builder)!
        g_variant_builder_unref(builder)
        return result
    }

    static func uint32Child(_ tuple: OpaquePointer, _ index: Int) -> UInt32 {
        let child = g_variant_get_child_value(tuple, gsize(index))!
        defer { g_variant_unref(child) }
        return g_variant_get_uint32(child)
    }

    /// Each entry of an `a{sv}`, key and the unboxed value, which the caller must not keep.
    static func forEachEntry(_ dictionary: OpaquePointer, _ body: (String, OpaquePointer) -> Void) {
        for index in 0..<Int(g_variant_n_children(dictionary)) {
            let entry = g_variant_get_child_value(dictionary, gsize(index))!
            let key = g_variant_get_child_value(entry, 0)!
            let boxed = g_variant_get_child_value(entry, 1)!
            let value = g_variant_get_variant(boxed)!
            body(String(cString: g_variant_get_string(key, nil)), value)
            g_variant_unref(value)
            g_variant_unref(boxed)
            g_variant_unref(key)
            g_variant_unref(entry)
        }
    }

    /// Parses one interface out of introspection XML; the result lives as long as the process.
    static func interface(xml: String, name: String) -> UnsafeMutablePointer<GDBusInterfaceInfo>? {
        var error: UnsafeMutablePointer<GError>?
        guard let node = g_dbus_node_info_new_for_xml(xml, &error) else {
            if let error { g_error_free(error) }
            return nil
        }
        return g_dbus_node_info_lookup_interface(node, name)
    }
}

