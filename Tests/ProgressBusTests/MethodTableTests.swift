import CGLib
import ProgressBus
@testable import ProgressDaemon
import XCTest

/// The manager's method table and the interface XML must describe the same methods, both
/// ways; the daemon checks it at start and refuses to run otherwise.
final class MethodTableTests: XCTestCase {
    typealias Row = (name: String, handler: Int)

    func testTheManagerTableMatchesTheXML() throws {
        XCTAssertNoThrow(try ProgressService.managerMethods.check(againstXML: BusNames.introspectionXML))
        XCTAssertTrue(ProgressService.managerMethods.methodNames.contains("Start"))
    }

    func rows(except missing: String? = nil, adding extra: String? = nil) -> MethodTable<Int> {
        var rows: [Row] = ProgressService.managerMethods.methodNames.sorted().filter { $0 != missing }.map { ($0, 0) }
        if let extra { rows.append((extra, 0)) }
        return MethodTable(interface: BusNames.managerInterface, rows)
    }

    func testAMethodInTheXMLWithoutAHandlerIsAnError() {
        XCTAssertThrowsError(try rows(except: "Pulse").check(againstXML: BusNames.introspectionXML)) { error in
            XCTAssertTrue("\(error)".contains("declared but without a handler: Pulse"), "\(error)")
        }
    }

    func testAHandlerForAMethodTheXMLLacksIsAnError() {
        XCTAssertThrowsError(try rows(adding: "Frobnicate").check(againstXML: BusNames.introspectionXML)) { error in
            XCTAssertTrue("\(error)".contains("handled but not declared: Frobnicate"), "\(error)")
        }
    }
}

/// The manager's properties are declared once, in ManagerProperty.all: the same names as the XML.
final class ManagerPropertyTableTests: XCTestCase {
    func testTheManagerPropertiesAreTheXMLs() throws {
        let info = try InterfaceDescriptions(xml: BusNames.introspectionXML, what: "XML")
        let manager = try info.interface(BusNames.managerInterface)
        var declared: [String] = []
        var index = 0
        while let property = manager.pointee.properties?[index] {
            declared.append(String(cString: property.pointee.name))
            index += 1
        }
        XCTAssertEqual(ManagerProperty.all.map(\.name), declared)
        XCTAssertEqual(ManagerProperty.signalledRows.map(\.name), ["TaskCount", "Overall", "StorageState"])
    }
}
