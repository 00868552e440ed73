import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import ProgressBus
import ProgressClient
import ProgressText

/// A failure to talk to the service (exit 69) or a refusal from it (exit 1, its message as is).
public struct ServiceError: Error {
    public let message: String
    public let status: Int32

    static func from(_ error: BusCallError, service: String = BusNames.busName) -> ServiceError {
        if error.name.hasPrefix(BusNames.errorPrefix) {
            return ServiceError(message: error.message, status: 1)
        }
        let unreachable = ["org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
                           "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Disconnected",
                           "org.freedesktop.DBus.Error.Spawn.ChildExited", ""]
        if unreachable.contains(error.name) {
            return ServiceError(
                message: "the service \(service) can not be reached: \(error.message)",
                status: ProgressctlProgram.unavailableStatus)
        }
        return ServiceError(message: error.description, status: 1)
    }
}

/// What a command works with: the caller's locale, output, and the daemon.
public final class Context {
    public let environment: [String: String]
    /// The caller's locale as the daemon should be asked for it ("fr_FR"), for every number shown.
    public let locale: String
    private var connection: BusConnection?

    public init(environment: [String: String]) {
        self.environment = environment
        locale = LocaleName.fromEnvironment(environment).identifier
    }

    public func out(_ text: String) { CommandRunner.writeAll(STDOUT_FILENO, Array(text.utf8)) }
    public func err(_ text: String) { CommandRunner.writeAll(STDERR_FILENO, Array(text.utf8)) }

    /// The session bus, connected on first use.
    public func bus() throws -> BusConnection {
        if let connection { return connection }
        do {
            let connection = try BusConnection.session()
            self.connection = connection
            return connection
        } catch {
            throw ServiceError(
                message: "no session bus: \(error.message)", status: ProgressctlProgram.unavailableStatus)
        }
    }

    /// Every task's properties, read in pages (SnapshotPage), so that no reply grows with
    /// the number of tasks; `body` gets each task as its page arrives, in name order.
    public func everyTask(_ body: (String, [String: BusValue]) throws -> Void) throws {
        var after = ""
        repeat {
            let reply = try manager("SnapshotPage", [.string(locale), .string(after), .uint32(0)])
            let page = reply.first?.dictionary ?? [:]
            for name in page.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                if let task = page[name]?.dictionary { try body(name, task) }
            }
            after = reply.count > 1 ? reply[1].string ?? "" : ""
        } while !after.isEmpty
    }

    /// Calls the manager; the daemon is started by D-Bus activation where it is installed.
    @discardableResult
    public func manager(_ method: String, _ arguments: [BusValue] = []) throws -> [BusValue] {
        do {
            return try bus().call(
                BusNames.busName, BusNames.managerPath, BusNames.managerInterface, method, arguments, autoStart: true)
        } catch let error as BusCallError {
            throw ServiceError.from(error)
        }
    }
}
