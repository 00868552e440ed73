import CGLib
import Foundation
import ProgressModel
import ProgressCore
@testable import ProgressDaemon
import ProgressTestSupport
import XCTest

/// The daemon's one path, in-process: every part is added to one ordered list, the restored
/// tasks reach every output as one batch through the stream (a new output needs no start-up
/// code of its own), inputs act only after that, and departures and the stop are events
/// every part hears in the same order.
final class OnePathTests: DaemonTestCase {
    /// The service runs in this process, on the fixture's bus when a test starts one.
    override var startsBusAtSetUp: Bool { false }

    /// A new output: nothing but `publish`, `clientLeft` and `stop`.
    final class NewOutput: ChangeOutput {
        var log: [String] = []
        func publish(_ batch: ChangeBatch) {
            let kinds = batch.changes.map { "\($0.name.text) \($0.kind)" }.joined(separator: ", ")
            log.append("\(batch.origin == .restore ? "restore" : "batch"): \(kinds)")
        }
        func clientLeft(_ client: ClientID) { log.append("left \(client)") }
        func stop() { log.append("stop") }
    }

    /// An input that acts as soon as it may: it removes a restored task.
    final class TidyingInput: DaemonInput {
        let context: DaemonContext
        var log: [String] = []
        init(context: DaemonContext) { self.context = context }
        func start() {
            log.append("start, \(context.read(.tasks([])) { $0.count }) tasks")
            context.perform(.remove(try! TaskName("old")), by: .daemon("test"))
        }
        func publish(_ batch: ChangeBatch) { log.append(batch.origin == .restore ? "restore" : "batch") }
    }

    /// Records as a previous run left them: a parent, its child, and a task to tidy.
    func previousRun() throws -> [TaskRecord] {
        let door = TaskFrontDoor(clock: ManualClock())
        var child = TaskUpdate()
        child.parent = "parent"
        for (name, update) in [("parent", TaskUpdate()), ("child", child), ("old", TaskUpdate())] {
            XCTAssertNil(door.perform(.start(try TaskName(name), update), by: .client(":1.1")).error)
        }
        return door.recordedTasks()
    }

    func testANewOutputHearsTheRestoredTasksAsABatchBeforeAnyInputActs() throws {
        try startBus()
        var error: UnsafeMutablePointer<GError>?
        let flags = GDBusConnectionFlags(
            rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        // Kept for the process's life: GDBus may still hold it on its worker thread.
        let connection = try XCTUnwrap(g_dbus_connection_new_for_address_sync(bus.address, flags, nil, nil, &error))
        g_dbus_connection_set_exit_on_close(connection, 0)
        let configuration = ServiceConfiguration(
            limits: Limits(), version: "test", texts: PlainTexts(), textsForLocale: { _ in PlainTexts() },
            restoredRecords: try previousRun())
        let service = try ProgressService(connection: connection, configuration: configuration)
        let input = TidyingInput(context: service.context)
        service.context.add(input)
        // Added after the input: it still hears everything before the input acts.
        let output = NewOutput()
        service.context.add(output)
        XCTAssertEqual(service.context.read(.tasks([])) { $0.count }, 0, "nothing is restored while parts are added")

        try service.register()
        XCTAssertEqual(output.log, ["restore: old created, parent created, child created", "batch: old removed"])
        XCTAssertEqual(input.log, ["restore", "start, 3 tasks", "batch"])
        XCTAssertEqual(
            service.changeIndex.lastSequence, service.context.frontDoor.lastSequence, "the index heard both batches")

        service.context.clientLeft(ClientID(":1.99"))
        service.unregister()
        XCTAssertEqual(output.log.suffix(2), ["left :1.99", "stop"], "departures and the stop come down the stream")
    }
}
