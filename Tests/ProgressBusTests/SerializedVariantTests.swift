import CGLib
import ProgressBus
import ProgressModel
import XCTest

/// The hand-made serialized form is byte for byte what GLib's builder makes, at every
/// framing-offset width (1, 2 and 4 bytes).
final class SerializedVariantTests: XCTestCase {
    func bytes(_ variant: OpaquePointer) -> [UInt8] {
        let size = Int(g_variant_get_size(variant))
        guard size > 0, let data = g_variant_get_data(variant) else { return [] }
        return Array(UnsafeRawBufferPointer(start: data, count: size))
    }

    func glibVardict(_ entries: [(key: String, value: PropertyValue)]) -> OpaquePointer {
        Variant.container("a{sv}") { builder in
            for (key, value) in entries { Variant.addEntry(builder, key, Variant.property(value)) }
        }
    }

    func entries(_ count: Int, text: String) -> [(key: String, value: PropertyValue)] {
        (0..<count).map { index in
            let values: [PropertyValue] = [
                .string(text + "\(index)"), .bool(index % 2 == 0), .double(Double(index) / 7),
                .uint64(UInt64.max - UInt64(index)), .int64(-Int64(index) - 1), .string(""),
            ]
            return ("Key\(index)", values[index % values.count])
        }
    }

    func assertSame(
        _ ours: OpaquePointer, _ theirs: OpaquePointer, file: StaticString = #filePath, line: UInt = #line
    ) {
        g_variant_ref_sink(ours)
        g_variant_ref_sink(theirs)
        defer {
            g_variant_unref(ours)
            g_variant_unref(theirs)
        }
        XCTAssertEqual(bytes(ours), bytes(theirs), file: file, line: line)
        XCTAssertTrue(g_variant_equal(UnsafeRawPointer(ours), UnsafeRawPointer(theirs)) != 0, file: file, line: line)
        XCTAssertTrue(g_variant_is_normal_form(theirs) != 0)
    }

    func testAVardictIsWhatGLibMakes() {
        for (count, text) in [
            (0, ""), (1, "a"), (3, "short"), (26, "a property value"), (400, String(repeating: "long ", count: 40)),
        ] {
            let entries = entries(count, text: text)
            let writer = SerializedVariant()
            writer.vardict(entries)
            assertSame(writer.make("a{sv}"), glibVardict(entries))
        }
    }

    func testADictionaryOfVardictsIsWhatGLibMakes() {
        for (tasks, properties) in [(0, 0), (1, 0), (1, 26), (50, 26), (3_000, 26)] {
            let rows = (0..<tasks).map { (key: "task \($0)", value: entries(properties, text: "t\($0)")) }
            let writer = SerializedVariant()
            writer.array(alignment: 8) { element in
                for row in rows {
                    element { writer.entry(key: row.key, valueAlignment: 8) { writer.vardict(row.value) } }
                }
            }
            let ours = writer.make("a{sa{sv}}")
            let theirs = Variant.container("a{sa{sv}}") { builder in
                for row in rows {
                    Variant.add(builder, g_variant_new_dict_entry(Variant.string(row.key), glibVardict(row.value)))
                }
            }
            assertSame(ours, theirs)
        }
    }

    /// A bounded array (issue 12's reply limit) takes back the element that does not fit and
    /// is then exactly GLib's array of the elements kept.
    func testABoundedArrayIsGLibsArrayOfWhatFits() {
        for limit in [200, 3_000, 30_000] {
            let all = entries(2_000, text: String(repeating: "x", count: 20))
            let writer = SerializedVariant()
            var kept = 0
            writer.boundedArray(alignment: 8, maxBytes: limit) { element in
                for (key, value) in all {
                    guard element({ writer.entry(key: key, valueAlignment: 8) { writer.variant(value) } }) else {
                        return
                    }
                    kept += 1
                }
            }
            XCTAssertGreaterThan(kept, 0)
            XCTAssertLessThan(kept, all.count)
            XCTAssertLessThanOrEqual(writer.bytes.count, limit)
            assertSame(writer.make("a{sv}"), glibVardict(Array(all.prefix(kept))))
        }
    }
}
