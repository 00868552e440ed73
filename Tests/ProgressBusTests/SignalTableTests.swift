import CGLib
import ProgressBus
import ProgressCore
@testable import ProgressDaemon
import ProgressTestSupport
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

    /// The values on the bus come from the store's table: TestOnlyProperty's row, which no
    /// field holds, is written into a task's a{sv} under its name, with its value and type.
    func testATestOnlyRowReachesTheBusValues() throws {
        // (Core's TaskPropertyTableTests follows its option, diff and record.)
        let table = TestOnlyProperty.table
        let door = TaskFrontDoor(clock: ManualClock(), properties: table)
        let name = try TaskName("copy")
        let update = try TaskUpdate.parse([("priority", .uint64(9))], for: .start, properties: table)
        _ = door.perform(.start(name, update), by: .client(":1.1"))
        let task = try XCTUnwrap(door.read(.task(name)) { $0.task(name) })
        let variants = TaskVariants(table: table)
        let all: OpaquePointer = g_variant_ref_sink(variants.properties(table.all, of: task, texts: PlainTexts()))
        defer { g_variant_unref(all) }
        XCTAssertEqual(Int(g_variant_n_children(all)), TaskProperty.allCases.count + 1)
        let value = try XCTUnwrap(g_variant_lookup_value(all, "Priority", nil))
        defer { g_variant_unref(value) }
        XCTAssertEqual(String(cString: g_variant_get_type_string(value)), "t")
        XCTAssertEqual(g_variant_get_uint64(value), 9)
        let one: OpaquePointer = g_variant_ref_sink(
            variants.properties(TaskProperties(index: table.index(named: "Priority")!), of: task, texts: PlainTexts()))
        defer { g_variant_unref(one) }
        XCTAssertEqual(Int(g_variant_n_children(one)), 1)
    }
}
