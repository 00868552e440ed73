import Foundation
import ProgressBus
import ProgressRenderService
import ProgressModel
import ProgressPolicies
import ProgressTestSupport
import XCTest

/// dbus/org.progressd.Progress1.xml is the single source of truth: the running daemon
/// must export exactly what it says, and it must document everything it declares.
final class IntrospectionTests: DaemonTestCase {
    static let standardInterfaces: Set<String> = [
        "org.freedesktop.DBus.Properties", "org.freedesktop.DBus.Introspectable", "org.freedesktop.DBus.Peer",
    ]

    static func file(_ name: String) -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return try! String(contentsOf: root.appendingPathComponent("dbus/\(name)"), encoding: .utf8)
    }

    static var xmlFile: String { file("org.progressd.Progress1.xml") }

    func introspect(_ path: String) throws -> IntrospectionXML.Node {
        let xml = try client.call(
            BusNames.busName, path, "org.freedesktop.DBus.Introspectable", "Introspect").first!.string!
        return try IntrospectionXML.parse(xml)
    }

    func testTheDaemonExportsExactlyWhatTheXMLDescribes() throws {
        let file = try IntrospectionXML.parse(Self.xmlFile)
        try start("my copy")

        let manager = try introspect(BusNames.managerPath)
        XCTAssertEqual(
            manager.interfaces.filter { !Self.standardInterfaces.contains($0.key) },
            file.interfaces.filter { $0.key != BusNames.taskInterface && $0.key != BusNames.subscriptionInterface })
        XCTAssertEqual(manager.children, ["tasks"])

        let tasks = try introspect(BusNames.tasksPath)
        XCTAssertEqual(tasks.children, ["my_20copy"])

        let task = try introspect(BusNames.tasksPath + "/my_20copy")
        XCTAssertEqual(
            task.interfaces.filter { !Self.standardInterfaces.contains($0.key) },
            file.interfaces.filter { $0.key == BusNames.taskInterface })
        XCTAssertEqual(
            Set(task.interfaces.keys).intersection(Self.standardInterfaces),
            ["org.freedesktop.DBus.Properties", "org.freedesktop.DBus.Introspectable", "org.freedesktop.DBus.Peer"])
    }

    func testTheFileOnDiskIsTheOneEmbedded() {
        XCTAssertEqual(Self.xmlFile, BusNames.introspectionXML)
    }

    func testTaskPropertiesMatchCore() throws {
        let file = try IntrospectionXML.parse(Self.xmlFile)
        let taskXML = try XCTUnwrap(file.interfaces[BusNames.taskInterface])
        let declared = matches(of: #"<property type="[^"]+" name="([A-Za-z]+)""#, in: taskXML)
        XCTAssertEqual(declared, TaskPropertyTable.standard.descriptors.map(\.name))
    }

    /// gdbus-codegen style: each method, signal and property has a comment opening with
    /// its name, and each argument is documented as @name.
    func testEveryMemberAndArgumentIsDocumented() throws {
        try assertDocumented(Self.xmlFile, atLeast: 25)
        try assertDocumented(Self.file("org.progressd.Renderer1.xml"), atLeast: 2)
        XCTAssertEqual(
            Self.file("org.progressd.Renderer1.xml"), RendererService.introspectionXML,
            "the embedded file is the one on disk")
    }

    private func assertDocumented(_ xml: String, atLeast minimum: Int) throws {
        let members = matches(of: #"<(?:method|signal|property|interface) name="([^"]+)""#, in: xml)
        XCTAssertGreaterThanOrEqual(members.count, minimum)
        for member in members {
            let documented = xml.range(
                of: "<!--\n\\s*\(NSRegularExpression.escapedPattern(for: member)):", options: .regularExpression)
            XCTAssertNotNil(documented, "\(member) has no doc comment opening with its name")
        }
        let blocks = xml.components(separatedBy: "<method ").dropFirst().map { ($0, "</method>") }
            + xml.components(separatedBy: "<signal ").dropFirst().map { ($0, "</signal>") }
        for (block, closing) in blocks {
            let name = matches(of: #"^name="([^"]+)""#, in: block).first ?? "?"
            let firstLine = block.prefix { $0 != "\n" }
            let end = firstLine.hasSuffix("/>") ? firstLine.endIndex : block.range(of: closing)!.lowerBound
            let body = String(block[..<end])
            let comment = try XCTUnwrap(commentBefore(name, in: xml), name)
            for argument in matches(of: #"<arg name="([^"]+)""#, in: body) {
                XCTAssertTrue(comment.contains("@\(argument):"), "\(name) does not document @\(argument)")
            }
        }
    }

    func testTheXMLDocumentsEveryErrorAndLimit() {
        let xml = Self.xmlFile
        for name in ProgressError.allNames {
            XCTAssertTrue(xml.contains("    \(name) "), "error \(name) is not documented")
        }
        let limits = Limits()
        for fragment in [
            "1 to \(limits.maxNameBytes) bytes", "\(limits.maxTasksPerCaller) tasks per process",
            "\(limits.maxSubscriptionsPerCaller) subscriptions per process",
            "\(limits.maxSubscriptions) subscriptions in all", "\(limits.maxTasks) tasks in all",
            "title \(limits.maxTitleBytes) bytes", "message \(limits.maxMessageBytes)",
            "unit \(limits.maxUnitBytes)", "app-id \(limits.maxAppIdBytes)",
            "at most \(limits.maxSignalsPerSecond) signals per second",
            "a reply of more than \(limits.maxReplyBytes) bytes", "than \(limits.maxReplyBytes) bytes (32 MiB",
            "or more than \(limits.maxPageTasks), means \(limits.maxPageTasks)",
            "at most \(limits.maxSubscriberSignalsPerSecond) Changed signals a second",
            "answered for \(limits.subscriberAnswerMicros / 1_000_000) seconds",
            "at most one Announcement a second", "names at most \(AnnouncementBudget.maxFailuresNamed) failures",
            "(d, \(Limits.announcementRateRange.lowerBound) to "
                + "\(Int(Limits.announcementRateRange.upperBound)), default 1)",
        ] {
            XCTAssertTrue(xml.contains(fragment), "the XML does not say '\(fragment)'")
        }
    }

    private func commentBefore(_ name: String, in xml: String) -> String? {
        guard let member = xml.range(of: "name=\"\(name)\"") else { return nil }
        let before = xml[..<member.lowerBound]
        guard let open = before.range(of: "<!--", options: .backwards) else { return nil }
        return String(before[open.upperBound...])
    }

    private func matches(of pattern: String, in text: String) -> [String] {
        let regex = try! NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines])
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range(at: 1), in: text).map { String(text[$0]) }
        }
    }
}
