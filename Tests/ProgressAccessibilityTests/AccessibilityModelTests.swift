import ProgressBus
import ProgressModel
import ProgressPolicies
import XCTest

@testable import ProgressAccessibility

/// The export's pure parts, without buses: the pacer's two spacing rules, the registry's
/// event matching, and the tree's places.
final class AccessibilityModelTests: XCTestCase {
    let a = try! TaskName("a")
    let b = try! TaskName("b")
    let c = try! TaskName("c")

    func testPacerKeepsTheTaskIntervalAndTheGlobalGapAndLosesNothing() {
        var pacer = ValueEventPacer(taskIntervalMicros: 100_000, globalGapMicros: 105_000)
        XCTAssertEqual(pacer.mark(a, now: 0), 0, "the first event may go at once")
        XCTAssertEqual(pacer.take(now: 0), a)
        // A flood on one task: marked again and again, one event per interval.
        var sent: [Int64] = []
        var now: Int64 = 0
        while now < 2_000_000 {
            _ = pacer.mark(a, now: now)
            if let due = pacer.nextDeadline(now: now), due <= now, pacer.take(now: now) != nil { sent.append(now) }
            now += 1_000
        }
        for (earlier, later) in zip(sent, sent.dropFirst()) {
            XCTAssertGreaterThanOrEqual(later - earlier, 105_000, "never two within the global gap")
        }
        XCTAssertLessThanOrEqual(sent.count, 20)
        XCTAssertFalse(pacer.isEmpty, "the last mark still waits: it is sent late, never dropped")
        XCTAssertNotNil(pacer.take(now: now + 200_000))
        XCTAssertTrue(pacer.isEmpty)
    }

    func testAnUnmarkedTaskUsesUpNoSpacing() {
        var pacer = ValueEventPacer(taskIntervalMicros: 100_000, globalGapMicros: 105_000)
        _ = pacer.mark(a, now: 0)
        _ = pacer.mark(b, now: 0)
        XCTAssertTrue(pacer.isMarked(a))
        XCTAssertEqual(pacer.next(now: 0), a, "the oldest mark first, still marked until sent or unmarked")
        pacer.unmark(a)
        XCTAssertFalse(pacer.isMarked(a))
        XCTAssertEqual(pacer.next(now: 0), b, "a task with nothing to say keeps no other waiting")
        pacer.sent(b, now: 0)
        XCTAssertTrue(pacer.isEmpty)
        _ = pacer.mark(a, now: 1_000)
        XCTAssertNil(pacer.next(now: 1_000), "a sent event's gap holds")
        XCTAssertEqual(pacer.nextDeadline(now: 1_000), 105_000, "the gap counts from b's event only")
    }

    func testPacerSpreadsSeveralTasksOldestFirst() {
        var pacer = ValueEventPacer(taskIntervalMicros: 100_000, globalGapMicros: 105_000)
        _ = pacer.mark(a, now: 0)
        _ = pacer.mark(b, now: 0)
        _ = pacer.mark(c, now: 0)
        XCTAssertEqual(pacer.take(now: 0), a)
        XCTAssertNil(pacer.take(now: 50_000), "within the gap nothing goes, whichever task")
        XCTAssertEqual(pacer.nextDeadline(now: 50_000), 105_000)
        XCTAssertEqual(pacer.take(now: 105_000), b)
        XCTAssertEqual(pacer.take(now: 210_000), c)
        pacer.forget(a)
        XCTAssertTrue(pacer.isEmpty)
    }

    func testRegisteredEventsMatchEitherSpellingAndWholeClasses() {
        var events = RegisteredEvents()
        XCTAssertTrue(events.wants("object:property-change:accessible-value"), "unknown yet: everything goes")
        events.replaceAll([])
        XCTAssertFalse(events.anyListener)
        XCTAssertFalse(events.wants("object:property-change:accessible-value"), "nobody listens: nothing goes")
        events.add(listener: ":1.5", event: "Object:PropertyChange:AccessibleValue")
        XCTAssertTrue(events.wants("object:property-change:accessible-value"))
        XCTAssertFalse(events.wants("object:announcement"))
        events.add(listener: ":1.6", event: "Object::")
        XCTAssertTrue(events.wants("object:announcement"), "a listener for the whole class")
        events.removeListener(":1.6")
        XCTAssertFalse(events.wants("object:announcement"))
        events.add(listener: ":1.5", event: "Object:PropertyChange:AccessibleValue")
        events.remove(listener: ":1.5", event: "Object:PropertyChange:AccessibleValue")
        XCTAssertTrue(events.wants("object:property-change:accessible-value"), "registered twice, deregistered once")
        XCTAssertFalse(events.wants("window:activate"))
    }

    func testTreePlacesChildrenUnderParentsAndIndicesFollowRemovals() {
        let tree = AccessibleTree()
        XCTAssertEqual(tree.insert(a, parent: nil), .init(parentPath: AccessibleTree.rootPath, index: 0))
        XCTAssertEqual(tree.insert(b, parent: nil)?.index, 1)
        let child = tree.insert(c, parent: a)
        XCTAssertEqual(child?.parentPath, tree.path(of: a))
        XCTAssertEqual(child?.index, 0)
        XCTAssertEqual(tree.depthFirst, [a, c, b])
        XCTAssertEqual(tree.task(atPath: tree.path(of: c)), c)
        let removed = tree.remove(a)
        XCTAssertEqual(removed?.place.index, 0)
        XCTAssertEqual(removed?.moved, [c], "a child left behind moves up to the root")
        XCTAssertEqual(tree.place(of: b)?.index, 0)
        XCTAssertEqual(tree.place(of: c), .init(parentPath: AccessibleTree.rootPath, index: 1))
        XCTAssertNil(
            tree.task(atPath: "/org/a11y/atspi/accessible/1"), "a removed bar's path names nothing, ever again")
        XCTAssertNil(tree.insert(b, parent: nil), "no bar twice")
    }

    func testStateWordsAreTwoWordsOfBits() {
        XCTAssertEqual(AccessibleBar.words([.visible, .showing, .sensitive, .enabled]), [0x4300_0100, 0])
        XCTAssertEqual(AccessibleBar.words([.indeterminate]), [0, 1])
    }

    /// The events the export sends are declared in the shipped XML with libatspi's argument,
    /// and a table naming an event the XML lacks is refused by name.
    func testTheEventsSentAreTheOnesTheXMLDeclares() throws {
        XCTAssertNoThrow(try AtspiInterfaces.objectEvents.check(againstXML: AtspiInterfaces.xml))
        let interface = try XCTUnwrap(
            IntrospectionXML.parse(AtspiInterfaces.xml).interfaces[AtspiInterfaces.objectEvents.interface])
        XCTAssertEqual(
            interface.components(separatedBy: #"type="a{sv}""#).count - 1, 4, "siiva{sv} on each of the four")
        let extra = SignalTable(
            interface: AtspiInterfaces.objectEvents.interface,
            ["PropertyChange", "StateChanged", "ChildrenChanged", "Announcement", "BoundsChanged"])
        XCTAssertThrowsError(try extra.check(againstXML: AtspiInterfaces.xml)) { error in
            XCTAssertTrue("\(error)".contains("BoundsChanged"), "\(error)")
        }
    }

    /// Every call the objects answer is a row of a table that equals the shipped XML: the
    /// methods of each interface, its readable properties' getters, its writable ones' setters.
    func testEveryCallIsARowOfTheXML() throws {
        let xml = AtspiInterfaces.xml
        for table in [
            AccessibleObjects.accessibleMethods, AccessibleObjects.applicationMethods,
            AccessibleObjects.componentMethods,
        ] {
            XCTAssertNoThrow(try table.check(againstXML: xml), table.interface)
        }
        XCTAssertNoThrow(try AccessibleObjects.cacheMethods.check(againstXML: xml))
        for table in [
            AccessibleObjects.accessibleProperties, AccessibleObjects.applicationProperties,
            AccessibleObjects.valueProperties,
        ] {
            XCTAssertNoThrow(try table.check(againstXML: xml), table.interface)
        }
        for table in [AccessibleObjects.applicationSetters, AccessibleObjects.valueSetters] {
            XCTAssertNoThrow(try table.check(againstXML: xml), table.interface)
        }
        XCTAssertEqual(AccessibleObjects.accessibleMethods.methodNames.count, 11)
    }
}
