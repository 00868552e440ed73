import CGLib
import ProgressModel

/// Small helpers between GVariant and the Swift types the daemon uses.
/// Every function returns a floating reference where GLib would, so results can be passed
/// straight to a builder, a tuple or a reply.
public enum Variant {
    public static func string(_ text: String) -> OpaquePointer { g_variant_new_string(text) }

    public static func objectPath(_ path: String) -> OpaquePointer { g_variant_new_object_path(path) }

    public static func property(_ value: PropertyValue) -> OpaquePointer {
        switch value {
        case .string(let text): g_variant_new_string(text)
        case .double(let number): g_variant_new_double(number)
        case .bool(let flag): g_variant_new_boolean(flag ? 1 : 0)
        case .uint64(let number): g_variant_new_uint64(guint64(number))
        case .int64(let number): g_variant_new_int64(gint64(number))
        }
    }

    public static func tuple(_ items: [OpaquePointer]) -> OpaquePointer {
        var items = items.map { Optional($0) }
        return g_variant_new_tuple(&items, gsize(items.count))
    }

    /// Builds a container of `type`, such as "a{sv}" or "as".
    public static func container(
        _ type: String, _ fill: (UnsafeMutablePointer<GVariantBuilder>) -> Void
    ) -> OpaquePointer {
        // The type string must outlive the call: a Swift string's C form lasts only for the call it is passed to.
        let builder = type.withCString { g_variant_builder_new(shim_variant_type($0)) }!
        fill(builder)
        let result = g_variant_builder_end(builder)!
        g_variant_builder_unref(builder)
        return result
    }

    /// An `as`.
    public static func strings(_ values: [String]) -> OpaquePointer {
        container("as") { builder in
            for value in values { g_variant_builder_add_value(builder, g_variant_new_string(value)) }
        }
    }

    public static func add(_ builder: UnsafeMutablePointer<GVariantBuilder>, _ value: OpaquePointer) {
        g_variant_builder_add_value(builder, value)
    }

    public static func addEntry(
        _ builder: UnsafeMutablePointer<GVariantBuilder>, _ key: String, _ value: OpaquePointer
    ) {
        g_variant_builder_add_value(
            builder, g_variant_new_dict_entry(g_variant_new_string(key), g_variant_new_variant(value)))
    }

    // MARK: Reading

    /// Each child of a container, transformed; the children are released after.
    public static func mapChildren<T>(_ container: OpaquePointer, _ transform: (OpaquePointer) -> T) -> [T] {
        (0..<Int(g_variant_n_children(container))).map { index in
            let child = g_variant_get_child_value(container, gsize(index))!
            defer { g_variant_unref(child) }
            return transform(child)
        }
    }

    /// Each child of a container, for what the body does with it.
    public static func forEachChild(_ container: OpaquePointer, _ body: (OpaquePointer) -> Void) {
        for index in 0..<Int(g_variant_n_children(container)) {
            let child = g_variant_get_child_value(container, gsize(index))!
            defer { g_variant_unref(child) }
            body(child)
        }
    }

    /// Child `index` of a container, which the caller unrefs.
    public static func child(_ container: OpaquePointer, _ index: Int) -> OpaquePointer {
        g_variant_get_child_value(container, gsize(index))!
    }

    public static func typeString(_ value: OpaquePointer) -> String {
        String(cString: g_variant_get_type_string(value))
    }

    /// The string child `index` of a tuple (s, o or g).
    public static func stringChild(_ tuple: OpaquePointer, _ index: Int) -> String {
        let child = g_variant_get_child_value(tuple, gsize(index))!
        defer { g_variant_unref(child) }
        return String(cString: g_variant_get_string(child, nil))
    }

    public static func uint32Child(_ tuple: OpaquePointer, _ index: Int) -> UInt32 {
        withChild(tuple, index) { g_variant_get_uint32($0) }
    }

    public static func uint64Child(_ tuple: OpaquePointer, _ index: Int) -> UInt64 {
        withChild(tuple, index) { UInt64(g_variant_get_uint64($0)) }
    }

    public static func doubleChild(_ tuple: OpaquePointer, _ index: Int) -> Double {
        withChild(tuple, index) { g_variant_get_double($0) }
    }

    public static func int32Child(_ tuple: OpaquePointer, _ index: Int) -> Int32 {
        withChild(tuple, index) { g_variant_get_int32($0) }
    }

    public static func boolChild(_ tuple: OpaquePointer, _ index: Int) -> Bool {
        withChild(tuple, index) { g_variant_get_boolean($0) != 0 }
    }

    /// The `as` or `ao` child `index`.
    public static func stringsChild(_ tuple: OpaquePointer, _ index: Int) -> [String] {
        withChild(tuple, index) { array in mapChildren(array) { String(cString: g_variant_get_string($0, nil)) } }
    }

    /// `read` applied to child `index`, which is released after.
    public static func withChild<T>(_ tuple: OpaquePointer, _ index: Int, _ read: (OpaquePointer) -> T) -> T {
        let child = g_variant_get_child_value(tuple, gsize(index))!
        defer { g_variant_unref(child) }
        return read(child)
    }

    /// The entries of the a{sv} child `index`, in the order the sender wrote them.
    public static func optionsChild(_ tuple: OpaquePointer, _ index: Int) -> [(key: String, value: OptionValue)] {
        withChild(tuple, index) { options($0) }
    }

    /// The entries of the a{sv} child `index` for `call`, which accepts `keys`: a dictionary
    /// with more entries than that must repeat a key or hold one the call does not know, so
    /// it is refused from its length, before any entry is read.
    public static func optionsChild(
        _ tuple: OpaquePointer, _ index: Int, for call: String, accepting keys: [String]
    ) throws(ProgressError) -> [(key: String, value: OptionValue)] {
        let child = g_variant_get_child_value(tuple, gsize(index))!
        defer { g_variant_unref(child) }
        let count = Int(g_variant_n_children(child))
        if count > keys.count {
            throw .limitExceeded(
                "\(call) got \(count) options; it accepts at most \(keys.count) keys: \(keys.joined(separator: ", "))")
        }
        return options(child)
    }

    /// The entries of an a{sv}, in the order the sender wrote them, each read as an
    /// OptionValue (its signature kept): the one walk over a dictionary of variants.
    public static func options(_ dictionary: OpaquePointer) -> [(key: String, value: OptionValue)] {
        let count = Int(g_variant_n_children(dictionary))
        var options: [(key: String, value: OptionValue)] = []
        options.reserveCapacity(count)
        for entryIndex in 0..<count {
            let entry = g_variant_get_child_value(dictionary, gsize(entryIndex))!
            let key = stringChild(entry, 0)
            let boxed = g_variant_get_child_value(entry, 1)!
            let value = g_variant_get_variant(boxed)!
            options.append((key, option(value)))
            g_variant_unref(value)
            g_variant_unref(boxed)
            g_variant_unref(entry)
        }
        return options
    }

    /// The value under `key` in an a{sv}, which the caller unrefs; nil when it is missing or
    /// (with `type`) of another type. GLib's lookup, for a value `options` does not read
    /// (such as an `ao`) or one passed on as it is.
    public static func lookup(_ dictionary: OpaquePointer, _ key: String, type: String? = nil) -> OpaquePointer? {
        guard let type else { return g_variant_lookup_value(dictionary, key, nil) }
        // The type string must outlive the call: a Swift string's C form lasts only for the call it is passed to.
        return type.withCString { g_variant_lookup_value(dictionary, key, shim_variant_type($0)) }
    }

    public static func option(_ value: OpaquePointer) -> OptionValue {
        let signature = typeString(value)
        // Lengths first, from the serialized value, before anything is copied.
        let limit = switch signature {
        case "s", "o", "g": OptionValue.maxTextBytes
        case "as", "ad", "au": OptionValue.maxArrayElements
        case "ay": OptionValue.maxByteArrayBytes
        default: Int.max
        }
        if limit != .max {
            var length: gsize = 0
            if signature.count == 1 {
                _ = g_variant_get_string(value, &length)
            } else {
                length = g_variant_n_children(value)
            }
            if Int(length) > limit {
                return OptionValue(.tooLarge(count: Int(length), limit: limit), signature: signature)
            }
        }
        let kind: OptionValue.Kind = switch signature {
        case "s", "o", "g": .string(String(cString: g_variant_get_string(value, nil)))
        case "d": .double(g_variant_get_double(value))
        case "b": .bool(g_variant_get_boolean(value) != 0)
        case "y": .unsignedInteger(UInt64(g_variant_get_byte(value)))
        case "q": .unsignedInteger(UInt64(g_variant_get_uint16(value)))
        case "u": .unsignedInteger(UInt64(g_variant_get_uint32(value)))
        case "t": .unsignedInteger(UInt64(g_variant_get_uint64(value)))
        case "n": .signedInteger(Int64(g_variant_get_int16(value)))
        case "i": .signedInteger(Int64(g_variant_get_int32(value)))
        case "x": .signedInteger(Int64(g_variant_get_int64(value)))
        case "as": .strings(mapChildren(value) { String(cString: g_variant_get_string($0, nil)) })
        case "ay": .bytes({
            var count: gsize = 0
            guard let data = g_variant_get_fixed_array(value, &count, 1), count > 0 else { return [] }
            return Array(UnsafeBufferPointer(start: data.assumingMemoryBound(to: UInt8.self), count: Int(count)))
        }())
        case "ad": .doubles(mapChildren(value) { g_variant_get_double($0) })
        case "au": .wholeNumbers(mapChildren(value) { UInt64(g_variant_get_uint32($0)) })
        default: .unsupported
        }
        return OptionValue(kind, signature: signature)
    }
}
