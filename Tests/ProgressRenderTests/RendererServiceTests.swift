import Foundation
import ProgressBus
import ProgressRenderService
import ProgressClient
import ProgressTestSupport
import XCTest

/// org.progressd.Renderer1 on a private bus, started by D-Bus activation from its file.
final class RendererServiceTests: DaemonTestCase {
    override var activatableServices: [String] { ["org.progressd.Renderer1"] }
    override var startsDaemonAtSetUp: Bool { false }

    func render(
        _ spec: [(String, BusValue)], on connection: BusConnection
    ) throws -> (bytes: [UInt8], info: [String: BusValue]) {
        let reply = try connection.call(RendererService.busName, RendererService.path, RendererService.interface,
                                        "Render", [.vardict(spec)], autoStart: true)
        let bytes = reply[0].array?.compactMap { value -> UInt8? in
            if case .byte(let byte) = value { byte } else { nil }
        } ?? []
        return (bytes, reply[1].dictionary ?? [:])
    }

    func testRenderByActivation() throws {
        let (bytes, info) = try render([("style", .string("ring")), ("fraction", .double(0.42)), ("width", .uint32(64)),
                                        ("height", .uint32(64)), ("scale", .double(2)), ("label", .string("percent")),
                                        ("locale", .string("fr_FR")), ("title", .string("Copie"))], on: client)
        XCTAssertEqual(Array(bytes.prefix(4)), [0x89, 0x50, 0x4E, 0x47])
        XCTAssertEqual(info["width"], .uint64(128))
        XCTAssertEqual(info["scale"], .double(2))
        XCTAssertEqual(info["format"], .string("png"))
        XCTAssertEqual(info["alt-text"], .string("Copie: 42\u{A0}%"))
        let introspection = try client.call(RendererService.busName, RendererService.path,
                                            "org.freedesktop.DBus.Introspectable", "Introspect").first?.string ?? ""
        let file = try IntrospectionXML.parse(RendererService.introspectionXML)
        XCTAssertEqual(try IntrospectionXML.parse(introspection).interfaces[RendererService.interface],
                       file.interfaces[RendererService.interface])
    }

    func testRefusalsAreNamed() throws {
        for (spec, name, fragment) in [
            ([("width", BusValue.uint32(0))], "InvalidSpec", "width 0 is outside 1...4096"),
            ([("style", .string("donut"))], "InvalidSpec", "style 'donut'"),
            ([("locale", .string("xx"))], "InvalidSpec", "locale 'xx' is not a locale"),
            ([("bogus", .bool(true))], "InvalidSpec", "option 'bogus' is not known to Render"),
            ([("label", .int32(3))], "InvalidSpec", "option 'label' expects a string"),
            ([("inner-shadow", .string("yes"))], "InvalidSpec", "option 'inner-shadow' expects a boolean"),
            ([("task", .string("copy"))], "Unavailable", "progressd can not be reached"),
        ] as [([(String, BusValue)], String, String)] {
            XCTAssertThrowsError(try render(spec, on: client)) { error in
                let error = error as? BusCallError
                XCTAssertEqual(error?.name, RendererService.errorPrefix + name)
                XCTAssertTrue(error?.message.contains(fragment) == true, "\(error?.message ?? "")")
            }
        }
    }

    /// Issue 22, case 10: a million gradient locations were read in full (2.4 s, 22 MB)
    /// before the count was checked. The length is now checked first, from the message, for
    /// every array and string option of the renderer and of progressd alike.
    func testOversizedArraysAndStringsAreRefusedFromTheirLength() throws {
        let locations = BusValue.array(elementType: "d", Array(repeating: .double(0.5), count: 1_000_000))
        XCTAssertThrowsError(try render([("style", .string("bar")), ("locations", locations)], on: client)) { error in
            let error = error as? BusCallError
            XCTAssertEqual(error?.name, RendererService.errorPrefix + "InvalidSpec")
            XCTAssertEqual(
                error?.message,
                "option 'locations' has 1000000 elements; the limit is 4096 (refused before it was read)")
        }
        try startDaemon()
        let title = String(repeating: "x", count: 1 << 20)
        XCTAssertThrowsError(try client.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Start",
                                             [.string("big"), .vardict([("title", .string(title))])])) { error in
            let error = error as? BusCallError
            XCTAssertEqual(error?.name, BusNames.errorPrefix + "LimitExceeded")
            XCTAssertEqual(
                error?.message, "option 'title' has 1048576 bytes; the limit is 65536 (refused before it was read)")
        }
        let names = BusValue.array(elementType: "s", Array(repeating: .string("t"), count: 5_000))
        XCTAssertThrowsError(try client.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface,
                                             "Subscribe", [.vardict([("tasks", names)])])) { error in
            XCTAssertEqual(
                (error as? BusCallError)?.message,
                "option 'tasks' has 5000 elements; the limit is 4096 (refused before it was read)")
        }
    }

    /// An options dictionary with more entries than its call has keys is refused from its
    /// length: read entry by entry, the first unknown key would be the error instead.
    func testOversizedOptionDictionariesAreRefusedFromTheirLength() throws {
        let entries = (0..<100_000).map { ("key \($0)", BusValue.bool(true)) }
        XCTAssertThrowsError(try render(entries, on: client)) { error in
            let error = error as? BusCallError
            XCTAssertEqual(error?.name, RendererService.errorPrefix + "InvalidSpec")
            XCTAssertTrue(
                error?.message.hasPrefix("Render got 100000 options; it accepts at most 36 keys: style, ") == true,
                "\(error?.message ?? "")")
        }
        try startDaemon()
        for (method, arguments) in [
            ("Start", [BusValue.string("big"), .vardict(entries)]), ("Update", [.string("big"), .vardict(entries)]),
            ("Changes", [.uint64(0), .vardict(entries)]), ("Subscribe", [.vardict(entries)]),
            ("UpdateMany", [.array(elementType: "(sa{sv})", [.tuple([.string("big"), .vardict(entries)])])]),
        ] {
            XCTAssertThrowsError(
                try client.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, method, arguments)
            ) { error in
                let error = error as? BusCallError
                XCTAssertEqual(error?.name, BusNames.errorPrefix + "LimitExceeded", method)
                XCTAssertTrue(
                    error?.message.contains("got 100000 options; it accepts at most") == true,
                    "\(method): \(error?.message ?? "")")
            }
        }
        XCTAssertEqual(
            try client.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "List", [])
                .first?.strings,
            [], "nothing was started")
    }

    /// progressctl render, through the service, of a live task.
    func testProgressctlRendersALiveTask() throws {
        try startDaemon()
        _ = try client.call(BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "Start",
                            [.string("copy"), .vardict([("title", .string("Copy")), ("fraction", .double(0.5))])])
        let (_, info) = try render([("task", .string("copy")), ("label", .string("percent"))], on: client)
        XCTAssertEqual(info["alt-text"], .string("Copy: 50 percent"))
        XCTAssertThrowsError(try render([("task", .string("ghost"))], on: client)) { error in
            XCTAssertEqual((error as? BusCallError)?.name, RendererService.errorPrefix + "NoSuchTask")
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ctl-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try CommandResult.run(
            BuildProducts.url(of: "progressctl").path,
            ["render", "copy", "-o", file.path, "--style", "striped", "--size", "200x20"],
            environment: bus.environment.merging(["LC_ALL": "C.UTF-8"]) { $1 })
        XCTAssertEqual(result.status, 0, result.errors)
        XCTAssertEqual(Array(try Data(contentsOf: file).prefix(4)), [0x89, 0x50, 0x4E, 0x47])
    }
}
