import CGLib
import ProgressBus

/// A D-Bus value as Swift sees it, for clients (progressctl, tests) that should not
/// touch GVariant themselves.
public indirect enum BusValue: Equatable, Sendable, CustomStringConvertible {
    case bool(Bool)
    case byte(UInt8)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    case variant(BusValue)
    /// Elements share `elementType`, which also types an empty array.
    case array(elementType: String, [BusValue])
    case dictEntry(BusValue, BusValue)
    case tuple([BusValue])

    /// An `a{sv}`, in the given order (duplicates allowed, to test a daemon's checks).
    public static func vardict(_ entries: [(String, BusValue)]) -> BusValue {
        .array(elementType: "{sv}", entries.map { .dictEntry(.string($0.0), .variant($0.1)) })
    }

    public var signature: String {
        switch self {
        case .bool: "b"
        case .byte: "y"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .variant: "v"
        case .array(let elementType, _): "a" + elementType
        case .dictEntry(let key, let value): "{" + key.signature + value.signature + "}"
        case .tuple(let items): "(" + items.map(\.signature).joined() + ")"
        }
    }

    public var description: String { String(cString: g_variant_print(gVariant(), 1)) }

    // MARK: Reading

    /// The value inside any number of variants.
    public var unboxed: BusValue {
        if case .variant(let inner) = self { return inner.unboxed }
        return self
    }

    public var string: String? {
        switch unboxed {
        case .string(let text), .objectPath(let text), .signature(let text): text
        default: nil
        }
    }

    public var double: Double? { if case .double(let value) = unboxed { value } else { nil } }
    public var bool: Bool? { if case .bool(let value) = unboxed { value } else { nil } }

    /// Any integer, widened.
    public var integer: Int64? {
        switch unboxed {
        case .byte(let value): Int64(value)
        case .int16(let value): Int64(value)
        case .uint16(let value): Int64(value)
        case .int32(let value): Int64(value)
        case .uint32(let value): Int64(value)
        case .int64(let value): value
        case .uint64(let value): Int64(exactly: value)
        default: nil
        }
    }

    public var uint64: UInt64? { if case .uint64(let value) = unboxed { value } else { nil } }

    public var array: [BusValue]? { if case .array(_, let items) = unboxed { items } else { nil } }

    public var strings: [String]? { array?.compactMap(\.string) }

    /// A dictionary with string or object path keys, such as `a{sv}` or `a{oa{sa{sv}}}`.
    public var dictionary: [String: BusValue]? {
        guard let items = array else { return nil }
        var result: [String: BusValue] = [:]
        for item in items {
            guard case .dictEntry(let key, let value) = item, let keyText = key.string else { return nil }
            result[keyText] = value.unboxed
        }
        return result
    }

    public subscript(key: String) -> BusValue? { dictionary?[key] }

    // MARK: GVariant

    /// A floating GVariant for this value.
    func gVariant() -> OpaquePointer {
        switch self {
        case .bool(let value): return g_variant_new_boolean(value ? 1 : 0)
        case .byte(let value): return g_variant_new_byte(value)
        case .int16(let value): return g_variant_new_int16(value)
        case .uint16(let value): return g_variant_new_uint16(value)
        case .int32(let value): return g_variant_new_int32(value)
        case .uint32(let value): return g_variant_new_uint32(value)
        case .int64(let value): return g_variant_new_int64(gint64(value))
        case .uint64(let value): return g_variant_new_uint64(guint64(value))
        case .double(let value): return g_variant_new_double(value)
        case .string(let value): return g_variant_new_string(value)
        case .objectPath(let value): return g_variant_new_object_path(value)
        case .signature(let value): return g_variant_new_signature(value)
        case .variant(let inner): return g_variant_new_variant(inner.gVariant())
        case .array(let elementType, let items):
            return Variant.container("a" + elementType) { builder in
                for item in items { g_variant_builder_add_value(builder, item.gVariant()) }
            }
        case .dictEntry(let key, let value): return g_variant_new_dict_entry(key.gVariant(), value.gVariant())
        case .tuple(let items): return Variant.tuple(items.map { $0.gVariant() })
        }
    }

    /// Reads any GVariant (not consumed).
    init(_ variant: OpaquePointer) {
        let type = Variant.typeString(variant)
        switch type.first {
        case "b": self = .bool(g_variant_get_boolean(variant) != 0)
        case "y": self = .byte(g_variant_get_byte(variant))
        case "n": self = .int16(g_variant_get_int16(variant))
        case "q": self = .uint16(g_variant_get_uint16(variant))
        case "i", "h": self = .int32(g_variant_get_int32(variant))
        case "u": self = .uint32(g_variant_get_uint32(variant))
        case "x": self = .int64(Int64(g_variant_get_int64(variant)))
        case "t": self = .uint64(UInt64(g_variant_get_uint64(variant)))
        case "d": self = .double(g_variant_get_double(variant))
        case "s": self = .string(String(cString: g_variant_get_string(variant, nil)))
        case "o": self = .objectPath(String(cString: g_variant_get_string(variant, nil)))
        case "g": self = .signature(String(cString: g_variant_get_string(variant, nil)))
        case "v":
            let inner = g_variant_get_variant(variant)!
            defer { g_variant_unref(inner) }
            self = .variant(BusValue(inner))
        case "a": self = .array(elementType: String(type.dropFirst()), BusValue.children(variant))
        case "{":
            let items = BusValue.children(variant)
            self = .dictEntry(items[0], items[1])
        default: self = .tuple(BusValue.children(variant))
        }
    }

    static func children(_ container: OpaquePointer) -> [BusValue] {
        Variant.mapChildren(container, BusValue.init)
    }
}
