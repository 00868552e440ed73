import ProgressBus
import ProgressModel

/// Runs progressd on the session bus until SIGTERM/SIGINT (exit 0), or until the bus
/// connection closes or the name cannot be owned (exit 1, so that systemd restarts it).
public final class Daemon {
    private let configuration: ServiceConfiguration

    public init(configuration: ServiceConfiguration) {
        self.configuration = configuration
    }

    /// `addOutputs` adds the optional outputs and inputs (one line each) to the one ordered
    /// list, after the standard ones; then the restored tasks go through the stream, the
    /// inputs start, and the name is owned.
    public func run(addOutputs: (DaemonContext) throws(DaemonError) -> Void = { _ in }) -> Int32 {
        var service: ProgressService?
        return ServiceRunner(busName: BusNames.busName).run(
            setUp: { connection throws(DaemonError) in
                let created = try ProgressService(connection: connection, configuration: configuration)
                try addOutputs(created.context)
                try created.register()
                service = created
            },
            tearDown: {
                service?.unregister()
            })
    }
}
