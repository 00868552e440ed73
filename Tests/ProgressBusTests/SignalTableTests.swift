import CGLib
import ProgressBus
import ProgressCore
@testable import ProgressDaemon
import XCTest

/// Signals are declared with their interfaces and checked against the XML both ways, as
/// methods are; the daemon checks at start and refuses to run otherwise.
final class SignalTableTests: XCTestCase {
    func testTheProgress1SignalTablesMatchTheXML() throws {
        XCTAssertNoThrow(try Progress1Signals.check())
        XCTAssertEqual(TaskRequest.cancelRequested.signal, InterfaceSignal(BusNames.taskInterface, "CancelRequested"))
        XCTAssertEqual(Progress1Signals.changed.interface, BusNames.subscriptionInterface)
    }

    func testASignalTheXMLDeclaresButTheTableLacksIsAnError() {
        let table = SignalTable(interface: BusNames.taskInterface, ["CancelRequested", "PauseRequested"])
        XCTAssertThrowsError(try table.check(againstXML: BusNames.introspectionXML)) { error in
            XCTAssertTrue("\(error)".contains("declared in the XML but not in the table: ResumeRequested"), "\(error)")
        }
    }

    func testASignalTheXMLLacksIsAnError() {
        let table = SignalTable(interface: BusNames.managerInterface, ["Announcement", "Frobnicated"])
        XCTAssertThrowsError(try table.check(againstXML: BusNames.introspectionXML)) { error in
            XCTAssertTrue("\(error)".contains("in the table but not declared: Frobnicated"), "\(error)")
        }
    }

    /// The values on the bus come from the store's table: a row only a test declares is
    /// written into a task's a{sv} under its name, with its value.
    func testATestOnlyRowReachesTheBusValues() throws {
        // (Core's TaskPropertyTableTests gives such a row an option and a record key too.)
        let linger = TaskPropertyDescriptor("Linger", { $0.lingerSeconds }, as: { .uint64(UInt64($0)) })
        let table = TaskPropertyTable(descriptors: TaskPropertyTable.standard.descriptors + [linger])
        let store = TaskStore(clock: ManualClock(), properties: table)
        let name = try TaskName("copy")
        let update = try TaskUpdate.parse([("linger-seconds", .uint64(9))], for: .start, properties: table)
        _ = TaskFrontDoor(store: store).perform(.start(name, update), by: .client(":1.1"))
        let task = try XCTUnwrap(store.task(name))
        let variants = TaskVariants(table: table)
        let all: OpaquePointer = g_variant_ref_sink(variants.properties(table.all, of: task, texts: Texts()))
        defer { g_variant_unref(all) }
        XCTAssertEqual(Int(g_variant_n_children(all)), TaskProperty.allCases.count + 1)
        let value = try XCTUnwrap(g_variant_lookup_value(all, "Linger", nil))
        defer { g_variant_unref(value) }
        XCTAssertEqual(g_variant_get_uint64(value), 9)
        let one: OpaquePointer = g_variant_ref_sink(
            variants.properties(TaskProperties(index: table.index(named: "Linger")!), of: task, texts: Texts()))
        defer { g_variant_unref(one) }
        XCTAssertEqual(Int(g_variant_n_children(one)), 1)
    }

    struct Texts: TaskDescribing {
        func label(wholePercent: Int) -> String { "\(wholePercent)" }
        func detail(of task: ProgressTask) -> String { "" }
        func accessibleText(of task: ProgressTask) -> String { "" }
        func summary(_ summary: AnnouncementSummary) -> String { "" }
        func burst(_ burst: NotificationBursts.Burst) -> (title: String, body: String) { ("", "") }
    }
}
