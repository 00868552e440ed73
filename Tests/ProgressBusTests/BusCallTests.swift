import CGLib
import ProgressBus
import ProgressClient
import ProgressModel
import ProgressTestSupport
import XCTest

/// The glue kit's call against a private dbus-daemon (the bus itself is the peer: it
/// answers GetId with `(s)` and GetNameOwner of a missing name with NameHasNoOwner), and
/// its readers on values built here.
final class BusCallTests: DaemonTestCase {
    /// No progressd: the bus itself is the peer.
    override var startsDaemonAtSetUp: Bool { false }
    var connection: OpaquePointer!

    override func setUpWithError() throws {
        try super.setUpWithError()
        var error: UnsafeMutablePointer<GError>?
        let flags = GDBusConnectionFlags(
            rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        connection = g_dbus_connection_new_for_address_sync(bus.address, flags, nil, nil, &error)
        if connection == nil { throw BusError(consuming: error) }
        g_dbus_connection_set_exit_on_close(connection, 0)
    }

    override func tearDown() {
        if let connection {
            g_dbus_connection_close_sync(connection, nil, nil)
            g_object_unref(UnsafeMutableRawPointer(connection))
        }
        connection = nil
        super.tearDown()
    }

    /// Calls the bus and pumps the main context until the reply (or error) is read.
    func callBus(
        _ method: String, _ parameters: OpaquePointer? = nil, replyType: String?, cancellable: BusCancellable? = nil,
        _ read: @escaping (OpaquePointer) -> String = Variant.typeString
    ) -> Result<String, BusError>? {
        var outcome: Result<String, BusError>?
        BusCall.call(
            connection, destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
            interface: "org.freedesktop.DBus", method: method, parameters, replyType: replyType,
            cancellable: cancellable
        ) { result in outcome = result.map(read) }
        BusConnection.pump(seconds: 30) { outcome != nil }
        return outcome
    }

    func testATypedReplyOfThatTypeArrives() throws {
        let id = try XCTUnwrap(callBus("GetId", replyType: "(s)") { Variant.stringChild($0, 0) }).get()
        XCTAssertEqual(id.count, 32, id)
    }

    func testAReplyOfAnotherTypeIsAnErrorNamingBothTypes() {
        guard case .failure(let error)? = callBus("GetId", replyType: "(u)") else {
            return XCTFail("GetId answered (u)")
        }
        XCTAssertEqual(error.kind, .invalidMessage, "\(error)")
        XCTAssertEqual(error.name, "")
        XCTAssertTrue(error.message.contains("(s)") && error.message.contains("(u)"), error.message)
        XCTAssertFalse(error.isNoAnswer)
    }

    func testAnErrorReplyKeepsItsDBusNameAndLosesGDBusPrefix() {
        let result = callBus("GetNameOwner", Variant.tuple([Variant.string("org.example.Nobody")]), replyType: "(s)")
        guard case .failure(let error)? = result else { return XCTFail("\(String(describing: result))") }
        XCTAssertEqual(error.kind, .remote)
        XCTAssertEqual(error.name, "org.freedesktop.DBus.Error.NameHasNoOwner")
        XCTAssertFalse(error.message.hasPrefix("GDBus.Error"), error.message)
        XCTAssertTrue(error.message.contains("org.example.Nobody"), error.message)
        XCTAssertEqual(error.description, "\(error.name): \(error.message)")
    }

    func testACallOnAClosedConnectionIsDisconnectedAndNoAnswer() {
        g_dbus_connection_close_sync(connection, nil, nil)
        guard case .failure(let error)? = callBus("GetId", replyType: "(s)") else {
            return XCTFail("a closed connection answered")
        }
        XCTAssertEqual(error.kind, .disconnected, "\(error)")
        XCTAssertTrue(error.isNoAnswer)
    }

    /// Makes a GetId call, cancels `cancellable` if asked to, and pumps until GDBus lets the
    /// call's closure go; whether the closure ran.
    func closureRan(cancellable: BusCancellable?, cancelAfterCalling: Bool) -> Bool {
        final class Token {}
        var token: Token? = Token()
        weak let released = token
        var ran = false
        BusCall.call(
            connection, destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
            interface: "org.freedesktop.DBus", method: "GetId", replyType: "(s)", cancellable: cancellable
        ) { [token] _ in
            withExtendedLifetime(token) { ran = true }
        }
        token = nil
        if cancelAfterCalling { cancellable?.cancel() }
        XCTAssertTrue(BusConnection.pump(seconds: 30) { released == nil }, "the call's closure was never released")
        return ran
    }

    func testACancelledCallNeverRunsItsClosureAndReleasesIt() {
        XCTAssertTrue(
            closureRan(cancellable: BusCancellable(), cancelAfterCalling: false), "an uncancelled call answers")
        let cancellable = BusCancellable()
        XCTAssertFalse(
            closureRan(cancellable: cancellable, cancelAfterCalling: true), "a cancelled call ran its closure")
        XCTAssertTrue(cancellable.isCancelled)
        // A cancellable stays cancelled: a later call with it is dropped as well.
        XCTAssertFalse(closureRan(cancellable: cancellable, cancelAfterCalling: false))
    }

    func testGErrorsMapToKinds() {
        let remote = BusError(consuming: g_dbus_error_new_for_dbus_error("org.example.Error.Broken", "it broke"))
        XCTAssertEqual(remote, BusError(name: "org.example.Error.Broken", message: "it broke", kind: .remote))
        let noReply = BusError(consuming: g_dbus_error_new_for_dbus_error("org.freedesktop.DBus.Error.NoReply", "late"))
        XCTAssertTrue(noReply.isNoAnswer)
        let timedOut = BusError(consuming: g_error_new_literal(
            g_io_error_quark(), Int32(G_IO_ERROR_TIMED_OUT.rawValue), "Timeout was reached"))
        XCTAssertEqual(timedOut.kind, .timedOut)
        XCTAssertTrue(timedOut.isNoAnswer)
        let other = BusError(consuming: g_error_new_literal(
            g_io_error_quark(), Int32(G_IO_ERROR_NOT_FOUND.rawValue), "gone"))
        XCTAssertEqual(other, BusError(name: "", message: "gone", kind: .local))
        XCTAssertFalse(other.isNoAnswer)
        XCTAssertEqual(BusError(consuming: nil).message, "unknown error")
    }

    func testADictionaryIsReadInOrderWithTypes() {
        let dictionary = g_variant_ref_sink(Variant.container("a{sv}") { builder in
            Variant.addEntry(builder, "name", Variant.string("disk"))
            Variant.addEntry(builder, "count", g_variant_new_uint32(7))
            Variant.addEntry(builder, "on", g_variant_new_boolean(1))
            Variant.addEntry(builder, "label", g_variant_new_bytestring("snap.x.y"))
            Variant.addEntry(builder, "objects", Variant.container("ao") { Variant.add($0, Variant.objectPath("/a")) })
            Variant.addEntry(builder, "count", g_variant_new_uint32(8))
        })!
        defer { g_variant_unref(dictionary) }
        let options = Variant.options(dictionary)
        XCTAssertEqual(options.map(\.key), ["name", "count", "on", "label", "objects", "count"])
        XCTAssertEqual(options.map(\.value.signature), ["s", "u", "b", "ay", "ao", "u"])
        let properties = VariantDictionary(options)
        XCTAssertEqual(properties.unsigned("count"), 7, "the first entry of a name counts")
        XCTAssertEqual(properties.value("count")?.signature, "u")
        XCTAssertEqual(properties.bool("on"), true)
        XCTAssertEqual(properties.string("name"), "disk")
        XCTAssertNil(properties.string("count"), "a value of another kind reads as absent")
        XCTAssertNil(properties.unsigned("name"))
        XCTAssertEqual(properties.bytes("label"), Array("snap.x.y\0".utf8))
        XCTAssertNil(
            properties["objects"].flatMap { if case .unsupported = $0 { nil } else { $0 } },
            "an ao is not an option value")
        XCTAssertNil(properties["missing"])
        let paths = Variant.lookup(dictionary, "objects", type: "ao")
        XCTAssertNotNil(paths)
        if let paths {
            XCTAssertEqual(Variant.mapChildren(paths) { String(cString: g_variant_get_string($0, nil)) }, ["/a"])
            g_variant_unref(paths)
        }
        XCTAssertNil(Variant.lookup(dictionary, "objects", type: "as"), "another type is not returned")
        let tuple = g_variant_ref_sink(
            Variant.tuple([dictionary, g_variant_new_int32(-3), Variant.strings(["x", "y"])]))!
        defer { g_variant_unref(tuple) }
        XCTAssertEqual(Variant.optionsChild(tuple, 0).count, 6)
        XCTAssertEqual(Variant.int32Child(tuple, 1), -3)
        XCTAssertEqual(Variant.stringsChild(tuple, 2), ["x", "y"])
    }
}
