import CGLib
import Foundation
import ProgressBus
import ProgressTestSupport
import XCTest

/// A method that returns nothing is answered with a method return that has no body (the
/// daemon builds it itself, not through GDBus's typed return). Read
/// here by clients of other D-Bus implementations: python3-dbus (libdbus) on the wire,
/// gdbus as GDBus clients see it; a call sent without wanting a reply is applied.
final class EmptyReplyTests: DaemonTestCase {
    /// Runs `script` with python3-dbus on the test's bus; its standard output, or a failure
    /// naming what it printed on standard error.
    private func python(_ script: String) throws -> String {
        let result = try CommandResult.run("/usr/bin/python3", ["-c", script], environment: bus.environment)
        XCTAssertEqual(result.status, 0, result.errors)
        return result.output
    }

    private static let connect = """
        import dbus
        bus = dbus.SessionBus()
        def call(method, *args, reply=True):
            message = dbus.lowlevel.MethodCallMessage('\(BusNames.busName)', '\(BusNames.managerPath)',
                                                      '\(BusNames.managerInterface)', method)
            message.append(*args)
            if not reply:
                message.set_no_reply(True)
                bus.send_message(message)
                return None
            return bus.send_message_with_reply_and_block(message, 10000)

        """

    func testLibdbusReadsTheReplyAsEmpty() throws {
        _ = try start("empty")
        let output = try python(Self.connect + """
            reply = call('SetFraction', dbus.String('empty'), dbus.Double(0.5))
            print(type(reply).__name__, repr(reply.get_signature()), reply.get_args_list(),
                  reply.get_reply_serial() > 0)
            """)
        XCTAssertEqual(
            output.trimmingCharacters(in: .whitespacesAndNewlines), "MethodReturnMessage dbus.Signature('') [] True")
        XCTAssertEqual(try property("empty", "Fraction").double, 0.5)
    }

    /// The reply as GDBus parses it off the wire: a method return to that serial, with no
    /// body (libdbus above reads its signature as the empty one, as the specification says).
    func testTheReplyCarriesNoBody() throws {
        _ = try start("wire")
        var error: UnsafeMutablePointer<GError>?
        let flags = GDBusConnectionFlags(
            rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        let connection = try XCTUnwrap(g_dbus_connection_new_for_address_sync(bus.address, flags, nil, nil, &error))
        defer {
            g_dbus_connection_close_sync(connection, nil, nil)
            g_object_unref(UnsafeMutableRawPointer(connection))
        }
        let message = g_dbus_message_new_method_call(
            BusNames.busName, BusNames.managerPath, BusNames.managerInterface, "SetFraction")
        defer { g_object_unref(UnsafeMutableRawPointer(message)) }
        g_dbus_message_set_body(message, Variant.tuple([Variant.string("wire"), g_variant_new_double(0.5)]))
        let reply = try XCTUnwrap(g_dbus_connection_send_message_with_reply_sync(
            connection, message, G_DBUS_SEND_MESSAGE_FLAGS_NONE, 10_000, nil, nil, &error),
            "\(BusError(consuming: error))")
        defer { g_object_unref(UnsafeMutableRawPointer(reply)) }
        XCTAssertEqual(g_dbus_message_get_message_type(reply), G_DBUS_MESSAGE_TYPE_METHOD_RETURN)
        XCTAssertNil(g_dbus_message_get_body(reply))
        XCTAssertNil(g_dbus_message_get_header(reply, G_DBUS_MESSAGE_HEADER_FIELD_SIGNATURE))
        XCTAssertEqual(g_dbus_message_get_reply_serial(reply), g_dbus_message_get_serial(message))
    }

    func testAnErrorStillComesAsAnErrorReply() throws {
        let output = try python(Self.connect + """
            try:
                call('SetFraction', dbus.String('missing'), dbus.Double(0.5))
                print('answered')
            except dbus.exceptions.DBusException as error:
                print(error.get_dbus_name())
            """)
        XCTAssertEqual(output.trimmingCharacters(in: .whitespacesAndNewlines), BusNames.errorPrefix + "NoSuchTask")
    }

    func testGDBusClientsReadTheEmptyReplyAsAnEmptyTuple() throws {
        _ = try start("gdbus")
        let result = try gdbus("SetFraction", "gdbus", "0.25")
        XCTAssertEqual(result.status, 0, result.errors)
        XCTAssertEqual(result.output.trimmingCharacters(in: .whitespacesAndNewlines), "()")
    }

    /// (The bus drops a reply nobody asked for, so a client can not tell whether one was
    /// sent; that the daemon sends none is GDBus's rule, followed in `MethodCall`.)
    func testACallThatWantsNoReplyIsApplied() throws {
        _ = try start("quiet")
        let output = try python(Self.connect + """
            call('SetFraction', dbus.String('quiet'), dbus.Double(0.75), reply=False)
            last = call('Describe', dbus.String('quiet'), dbus.String(''))
            print(float(last.get_args_list()[0]['Fraction']))
            """)
        XCTAssertEqual(output.trimmingCharacters(in: .whitespacesAndNewlines), "0.75")
    }
}
