import CGLib
import ProgressBus
import XCTest

/// An interface is exported only when its tables equal its XML, both ways: every method a
/// row, every readable property a getter, every writable one a setter, and nothing more.
/// A mismatch is refused when the interface is made, naming what differs.
final class ExportedInterfaceTests: XCTestCase {
    static let xml = """
        <node><interface name="org.example.Thing">
          <method name="Poke"/>
          <method name="Prod"><arg type="s" direction="in"/></method>
          <property name="Size" type="u" access="read"/>
          <property name="Label" type="s" access="readwrite"/>
          <property name="Secret" type="s" access="write"/>
        </interface></node>
        """
    static let name = "org.example.Thing"

    var descriptions: InterfaceDescriptions!

    override func setUpWithError() throws {
        descriptions = try InterfaceDescriptions(xml: Self.xml, what: "the test XML")
    }

    func make(
        methods: [String] = ["Poke", "Prod"], getters: [String] = ["Size", "Label"],
        setters: [String] = ["Label", "Secret"], interface: String = ExportedInterfaceTests.name
    ) throws -> ExportedInterface {
        try ExportedInterface(
            descriptions.interface(Self.name), keeping: descriptions,
            methods: MethodTable(interface: interface, methods.map { ($0, { (_: IncomingCall) in }) }),
            properties: PropertyTable(interface: Self.name, getters.map {
                ($0, { (_: String) throws(CallFailure) in g_variant_new_uint32(0) })
            }),
            setters: PropertyTable(interface: Self.name, access: .write, setters.map {
                ($0, { (_: String, _: OpaquePointer) throws(CallFailure) in })
            }))
    }

    func assertRefused(
        _ fragment: String, file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> ExportedInterface
    ) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            XCTAssertTrue("\(error)".contains(fragment), "'\(error)' lacks '\(fragment)'", file: file, line: line)
        }
    }

    func testTablesThatEqualTheXMLAreExported() throws {
        XCTAssertEqual(try make().name, Self.name)
    }

    func testAMethodWithoutARowIsRefused() {
        assertRefused("declared but without a handler: Prod") { try make(methods: ["Poke"]) }
    }

    func testARowForAMethodTheXMLLacksIsRefused() {
        assertRefused("handled but not declared: Frob") { try make(methods: ["Poke", "Prod", "Frob"]) }
    }

    func testAReadablePropertyWithoutAGetterIsRefused() {
        assertRefused("readable but without a getter: Label") { try make(getters: ["Size"]) }
    }

    func testAGetterForAPropertyThatIsNotReadableIsRefused() {
        assertRefused("a getter but not a readable property: Secret") { try make(getters: ["Size", "Label", "Secret"]) }
    }

    func testAWritablePropertyWithoutASetterIsRefused() {
        assertRefused("writable but without a setter: Secret") { try make(setters: ["Label"]) }
    }

    func testASetterForAReadOnlyPropertyIsRefused() {
        assertRefused("a setter but not a writable property: Size") { try make(setters: ["Label", "Secret", "Size"]) }
    }

    func testATableOfAnotherInterfaceIsRefused() {
        assertRefused("a table of org.example.Other was given for the interface org.example.Thing") {
            try make(interface: "org.example.Other")
        }
    }
}
