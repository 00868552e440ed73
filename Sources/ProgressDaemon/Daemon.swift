import CGLib
import ProgressBus
import ProgressModel

/// Runs progressd on the session bus until SIGTERM/SIGINT (exit 0), or until the bus
/// connection closes or the name cannot be owned (exit 1, so that systemd restarts it).
public final class Daemon {
    private let configuration: ServiceConfiguration
    /// glibc's first threshold is 128 KiB; at that size a Snapshot's page faults on every
    /// fresh mapping cost it more than at 1 MiB.
    static let mappedBlockBytes: Int32 = 1 << 20

    /// The program to exec once `run` returned, when the daemon handed over to it (an upgrade).
    public private(set) var replacement: String?

    public init(configuration: ServiceConfiguration) {
        self.configuration = configuration
    }

    /// `addOutputs` adds the optional outputs and inputs (one line each) to the one ordered
    /// list, after the standard ones; then the restored tasks go through the stream, the
    /// inputs start, and the name is owned.
    public func run(addOutputs: (DaemonContext) throws(DaemonError) -> Void = { _ in }) -> Int32 {
        // A large reply's buffers (a Snapshot's megabytes) are mapped on their own and
        // unmapped when freed. Left to itself, glibc raises that size to the largest block
        // freed, so the next large replies are built in the heap, which keeps their size.
        _ = shim_malloc_map_blocks_from(Self.mappedBlockBytes)
        var service: ProgressService?
        let runner = ServiceRunner(busName: BusNames.busName)
        return runner.run(
            setUp: { connection throws(DaemonError) in
                let created = try ProgressService(connection: connection, configuration: configuration)
                created.context.handOver = { [unowned self, unowned runner, unowned created] path, reason in
                    replacement = path
                    runner.handOver(reason) { created.context.isQuiet }
                }
                try addOutputs(created.context)
                try created.register()
                service = created
            },
            tearDown: {
                service?.unregister()
            })
    }
}
