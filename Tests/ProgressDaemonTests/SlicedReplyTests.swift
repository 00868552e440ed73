import CGLib
import ProgressBus
import ProgressCore
import ProgressModel
@testable import ProgressDaemon
import ProgressTestSupport
import XCTest

/// The large reads' replies written a slice at a time: in any slice size, the bytes, the
/// count and the page's last name are those of the reply written in one slice, which is
/// what GLib's own builder makes of the same tasks; and the least size a refusal is decided
/// by is never more than a reply really takes.
final class SlicedReplyTests: XCTestCase {
    private let texts = PlainTexts()

    /// Tasks with names that sort in byte order, not in the order they are started, some with
    /// a title, a message or an app id.
    private func store(tasks: Int, plain: Bool = false) throws -> (TaskFrontDoor, TaskFrontDoor) {
        let door = TaskFrontDoor(clock: ManualClock())
        let store = door
        for index in 0..<tasks {
            var update = TaskUpdate()
            if !plain {
                if index % 3 == 0 { update.title = "Copying file \(index)" }
                if index % 5 == 0 { update.message = "é\(index)" }
                if index % 7 == 0 { update.appId = "org.example.App\(index % 2)" }
            }
            let text = plain ? "\(index)" : ["t\(index)", "日\(index)", "a b \(index)", "Z\(index)"][index % 4]
            _ = door.perform(.start(try store.name(text), update), by: .client("c"))
        }
        return (door, door)
    }

    private func written(
        _ store: TaskFrontDoor, _ rows: SlicedReply.Rows, _ element: SlicedReply.Element, slice: Int,
        maxBytes: Int = Limits().maxReplyBytes, maxCount: Int = .max
    ) -> (bytes: [UInt8], count: Int, last: String?, complete: Bool) {
        let reply = SlicedReply(rows, element: element, maxBytes: maxBytes, maxCount: maxCount, expected: 0)
        while !store.read(.everything, { reply.writeSlice(of: slice, from: $0) }) {}
        let value = g_variant_ref_sink(reply.make())!
        defer { g_variant_unref(value) }
        let bytes = Array(
            UnsafeRawBufferPointer(start: g_variant_get_data(value), count: Int(g_variant_get_size(value))))
        return (bytes, reply.count, reply.last?.text, reply.complete)
    }

    func testEverySliceSizeWritesTheSameReplyAsOneSlice() throws {
        let (store, _) = try store(tasks: 61)
        let variants = TaskVariants(table: store.properties)
        let all = store.properties.all
        let some: TaskProperties = [.name, .fraction, .title]
        let cases: [(String, SlicedReply.Rows, SlicedReply.Element, Int, Int)] = [
            ("Snapshot", .names(after: "", all), .byName(variants, texts), Limits().maxReplyBytes, .max),
            (
                "SnapshotPage after a name", .names(after: "a b 4", all), .byName(variants, texts),
                Limits().maxReplyBytes, 9
            ),
            (
                "SnapshotPage after a name no task has", .names(after: "t5", all), .byName(variants, texts),
                Limits().maxReplyBytes, 1_000
            ),
            (
                "Changes of some properties", .names(after: "", some), .byName(variants, texts),
                Limits().maxReplyBytes, .max
            ),
            (
                "Changes of listed tasks",
                .listed(store.read(.everything) { $0.sortedNames }.reversed().map { ($0, some) }),
                .byName(variants, texts), Limits().maxReplyBytes, .max
            ),
            (
                "GetManagedObjects", .names(after: "", all), .managedObject(variants, texts),
                Limits().maxReplyBytes, .max
            ),
            ("List", .names(after: "", []), .name, Limits().maxReplyBytes, .max),
            ("a Snapshot that does not fit", .names(after: "", all), .byName(variants, texts), 20_000, .max),
        ]
        for (title, rows, element, maxBytes, maxCount) in cases {
            let whole = written(store, rows, element, slice: .max, maxBytes: maxBytes, maxCount: maxCount)
            XCTAssertGreaterThan(whole.count, 0, title)
            for slice in [1, 2, 7, 60] {
                let sliced = written(store, rows, element, slice: slice, maxBytes: maxBytes, maxCount: maxCount)
                XCTAssertEqual(sliced.bytes, whole.bytes, "\(title), slices of \(slice)")
                XCTAssertEqual(sliced.count, whole.count, "\(title), slices of \(slice)")
                XCTAssertEqual(sliced.last, whole.last, "\(title), slices of \(slice)")
                XCTAssertEqual(sliced.complete, whole.complete, "\(title), slices of \(slice)")
            }
        }
        let refused = written(store, .names(after: "", all), .byName(variants, texts), slice: 5, maxBytes: 20_000)
        XCTAssertFalse(refused.complete, "61 tasks of every property pass 20,000 bytes")
        let page = written(store, .names(after: "a b 4", all), .byName(variants, texts), slice: 2, maxCount: 9)
        XCTAssertEqual(page.count, 9)
        XCTAssertFalse(page.complete, "tasks follow the page")
    }

    /// The one-slice reply is the dictionary GLib's builder makes of the same tasks, in name order.
    func testTheReplyIsWhatGLibBuildsOfTheTasksInNameOrder() throws {
        let (store, _) = try store(tasks: 23)
        let variants = TaskVariants(table: store.properties)
        let reply = SlicedReply(.names(after: "", store.properties.all), element: .byName(variants, texts),
                                maxBytes: Limits().maxReplyBytes, expected: 0)
        while !store.read(.everything, { reply.writeSlice(of: 4, from: $0) }) {}
        let ours = g_variant_ref_sink(reply.make())!
        let glib = g_variant_ref_sink(Variant.container("a{sa{sv}}") { builder in
            store.read(.everything) { tasks in
                for name in tasks.sortedNames {
                    Variant.add(builder, g_variant_new_dict_entry(
                        Variant.string(name.text),
                        variants.properties(store.properties.all, of: tasks.task(name)!, texts: texts)))
                }
            }
        })!
        defer {
            g_variant_unref(ours)
            g_variant_unref(glib)
        }
        XCTAssertTrue(g_variant_equal(UnsafeRawPointer(ours), UnsafeRawPointer(glib)) != 0)
    }

    /// Between slices the table may change: a task removed is left out, a task changed shows
    /// its new values, one started after the last name written is in, and the array stays whole.
    func testSlicesReadTheTasksAsTheyAreWhenWritten() throws {
        let (store, door) = try store(tasks: 10, plain: true)
        let variants = TaskVariants(table: store.properties)
        let reply = SlicedReply(.names(after: "", [.name, .fraction]), element: .byName(variants, texts),
                                maxBytes: Limits().maxReplyBytes, expected: 0)
        XCTAssertFalse(store.read(.everything) { reply.writeSlice(of: 3, from: $0) })
        XCTAssertEqual(reply.last?.text, "2")
        _ = door.perform(.remove(try store.name("5")), by: .client("c"))
        _ = door.perform(.setFraction(try store.name("6"), 0.25), by: .client("c"))
        _ = door.perform(.start(try store.name("55"), TaskUpdate()), by: .client("c"))
        _ = door.perform(.start(try store.name("1a"), TaskUpdate()), by: .client("c"))
        while !store.read(.everything, { reply.writeSlice(of: 3, from: $0) }) {}
        let value = g_variant_ref_sink(reply.make())!
        defer { g_variant_unref(value) }
        var names: [String] = []
        var fractionOf6 = -1.0
        for index in 0..<Int(g_variant_n_children(value)) {
            let entry = Variant.child(value, index)
            let name = Variant.stringChild(entry, 0)
            names.append(name)
            if name == "6" {
                let properties = Variant.child(entry, 1)
                let fraction = g_variant_lookup_value(properties, "Fraction", nil)!
                fractionOf6 = g_variant_get_double(fraction)
                g_variant_unref(fraction)
                g_variant_unref(properties)
            }
            g_variant_unref(entry)
        }
        XCTAssertEqual(
            names, ["0", "1", "2", "3", "4", "55", "6", "7", "8", "9"], "1a sorts before the last name written")
        XCTAssertEqual(fractionOf6, 0.25)
        XCTAssertEqual(reply.count, 10)
    }

    /// The refusal's bound is below every reply's real size, for tasks as small as they come
    /// (one-byte names, empty texts), so that a read that fits is never refused.
    func testTheLeastSizeIsNeverMoreThanTheReply() throws {
        for plain in [true, false] {
            let (store, _) = try store(tasks: 40, plain: plain)
            let variants = TaskVariants(table: store.properties)
            let first = store.read(.everything) { $0.task($0.sortedNames[0])! }
            let valueBytes = LargeReadScheduler.leastValueBytes(of: first, table: store.properties, texts: texts)
            let cases: [(SlicedReply.Element, TaskProperties)] = [
                (.byName(variants, texts), store.properties.all), (.byName(variants, texts), [.name]),
                (.byName(variants, texts), [.fraction, .completed]),
                (.managedObject(variants, texts), store.properties.all),
                (.name, []),
            ]
            for (element, properties) in cases {
                let reply = written(store, .names(after: "", properties), element, slice: .max)
                let least = store.read(.everything) {
                    $0.leastReplyBytes(
                        perTask: LargeReadScheduler.leastBytes(
                            of: element, properties, table: store.properties, valueBytes: valueBytes))
                }
                XCTAssertLessThanOrEqual(least, reply.bytes.count, "\(element.arrayType) of \(properties)")
                XCTAssertGreaterThan(least, reply.bytes.count / 3, "a bound that refuses what is far too big")
            }
        }
    }

    /// A read of up to half the values of the longest reply is written whole in its call: a
    /// List of 41,000 names and a page of 500 tasks are; a page of 1,000 tasks (107,000 values)
    /// and a List of 100,000 names go in slices. A raised limit does not raise the bound; a
    /// lowered one lowers it.
    func testReadsOfUpToHalfTheLongestReplyAreWrittenWhole() throws {
        let (store, _) = try store(tasks: 1)
        let variants = TaskVariants(table: store.properties)
        func values(_ element: SlicedReply.Element, _ properties: TaskProperties, tasks: Int) -> Int {
            SlicedReply(.names(after: "", properties), element: element, maxBytes: Limits().maxReplyBytes,
                        expected: tasks).expectedValues
        }
        let all = store.properties.all
        XCTAssertEqual(values(.name, [], tasks: 41_000), 41_000)
        XCTAssertEqual(values(.byName(variants, texts), all, tasks: 1_000),
                       1_000 * SlicedReply.Element.taskValues(properties: all.rawValue.nonzeroBitCount))
        let whole = LargeReadScheduler.wholeReadValues(Limits())
        XCTAssertEqual(whole, Limits().maxReplyValues / 2)
        XCTAssertLessThanOrEqual(values(.name, [], tasks: 41_000), whole)
        XCTAssertGreaterThan(values(.name, [], tasks: 100_000), whole)
        XCTAssertLessThanOrEqual(values(.byName(variants, texts), all, tasks: 500), whole)
        XCTAssertGreaterThan(values(.byName(variants, texts), all, tasks: 1_000), whole)
        XCTAssertEqual(values(.name, [], tasks: .max), .max, "no overflow")
        var raised = Limits()
        raised.maxReplyValues = 1_000_000
        XCTAssertEqual(LargeReadScheduler.wholeReadValues(raised), whole)
        var lowered = Limits()
        lowered.maxReplyValues = 4_096
        XCTAssertEqual(LargeReadScheduler.wholeReadValues(lowered), 2_048)
    }
}
