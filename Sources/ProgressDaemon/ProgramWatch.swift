import CGLib
import Glibc
import ProgressBus
import ProgressModel

/// An upgrade reaches the running daemon: this input watches progressd's own program file
/// (a GFileMonitor on its path), and when another program has taken that path (dpkg
/// renames the new file over the old, `make install` writes a new one) it starts the new
/// program in this one's place, with every task and binding carried across.
///
/// How: once the path has been still for a second, the file there is looked at: not the
/// file this process runs (another device and inode than /proc/self/exe's), a regular
/// file this user may run. It is run with `--version`, so that a program that can not start
/// (a library it needs is not unpacked yet, a half-written file) is never execed; while it
/// fails the daemon stays as it is, and the next change of the path tries again. When it
/// answers, the daemon hands over (`DaemonContext.handOver`): it releases its name (the bus
/// holds what is sent to the name from then on), finishes every call in flight, writes and
/// syncs the journal as at any stop, and execs the new program in its own process (the
/// same process id, so systemd's unit and the state directory's lock stay with it). The
/// new program restores the tasks, binds each again to its connection (`RestoredBindings`:
/// the connections did not leave), owns the name, and the bus gives it the calls it held.
final class ProgramWatch: DaemonInput {
    private let context: DaemonContext
    private let path: String
    private var monitor: UnsafeMutablePointer<GFileMonitor>?
    private lazy var settled = MainLoopTimer(clock: context.clock) { [unowned self] in look() }
    /// The `--version` run of a candidate, while it runs.
    private var trial: OpaquePointer?
    private var handingOver = false
    /// One second of quiet after the last change: dpkg writes `progressd.dpkg-new`, renames it
    /// over `progressd`, and may touch it again.
    static let settleMicros: Int64 = 1_000_000

    init(context: DaemonContext, path: String) {
        self.context = context
        self.path = path
    }

    var interest: TaskProperties { [] }
    func publish(_ batch: ChangeBatch) {}

    func start() {
        let file = g_file_new_for_path(path)
        defer { g_object_unref(UnsafeMutableRawPointer(file)) }
        var error: UnsafeMutablePointer<GError>?
        guard let monitor = g_file_monitor_file(file, G_FILE_MONITOR_NONE, nil, &error) else {
            return Log.warning(
                "can not watch \(path) for upgrades (\(consumeMessage(error))): "
                    + "an upgrade takes effect when progressd next starts")
        }
        self.monitor = monitor
        typealias Changed = @convention(c) (gpointer?, gpointer?, gpointer?, GFileMonitorEvent, gpointer?) -> Void
        let changed: Changed = { _, _, _, _, userData in
            assertOnMainLoop()
            Unmanaged<ProgramWatch>.fromOpaque(userData!).takeUnretainedValue().changed()
        }
        _ = shim_signal_connect(
            UnsafeMutableRawPointer(monitor), "changed", unsafeBitCast(changed, to: GCallback.self),
            Unmanaged.passUnretained(self).toOpaque())
    }

    func stop() {
        settled.cancel()
        if let monitor {
            g_file_monitor_cancel(monitor)
            g_object_unref(UnsafeMutableRawPointer(monitor))
        }
        monitor = nil
    }

    private func changed() {
        guard !handingOver else { return }
        settled.arm(at: context.clock.monotonicMicros + Self.settleMicros)
    }

    /// Runs the program at the path with `--version` when it is another file than this
    /// process's, and one this user may run.
    private func look() {
        guard trial == nil, !handingOver, Self.isAnotherProgram(path) else { return }
        var error: UnsafeMutablePointer<GError>?
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup(path), strdup("--version"), nil]
        defer { for argument in argv { free(argument) } }
        guard let process = argv.withUnsafeBufferPointer({ arguments in
            g_subprocess_newv(
                UnsafePointer(OpaquePointer(arguments.baseAddress!)),
                GSubprocessFlags(
                    rawValue: G_SUBPROCESS_FLAGS_STDOUT_PIPE.rawValue | G_SUBPROCESS_FLAGS_STDERR_MERGE.rawValue),
                &error)
        }) else {
            return Log.warning(
                "\(path) was replaced, but the new program can not be run (\(consumeMessage(error))): "
                    + "progressd stays as it is")
        }
        trial = process
        g_subprocess_communicate_utf8_async(process, nil, nil, { source, result, userData in
            assertOnMainLoop()
            let watch = Unmanaged<ProgramWatch>.fromOpaque(userData!).takeRetainedValue()
            var output: UnsafeMutablePointer<CChar>?
            let process = OpaquePointer(source)
            let read = g_subprocess_communicate_utf8_finish(process, result, &output, nil, nil) != 0
            let answer = output.map { String(cString: $0) } ?? ""
            g_free(output)
            let ran = read && g_subprocess_get_successful(process) != 0
            watch.tried(ran: ran, answer: answer.split(separator: "\n").first.map(String.init) ?? "")
        }, Unmanaged.passRetained(self).toOpaque())
    }

    private func tried(ran: Bool, answer: String) {
        if let trial { g_object_unref(UnsafeMutableRawPointer(trial)) }
        trial = nil
        guard ran else {
            return Log.warning(
                "\(path) was replaced, but the new program did not run (\(answer)): "
                    + "progressd stays as it is until it changes again")
        }
        handingOver = true
        context.handOver(
            path, "\(path) was replaced by \(answer): progressd \(context.configuration.version) hands over to it")
    }

    /// Whether `path` is a regular file this user may run, and not the one this process runs.
    static func isAnotherProgram(_ path: String) -> Bool {
        var there = stat()
        var running = stat()
        guard stat(path, &there) == 0, stat("/proc/self/exe", &running) == 0 else { return false }
        return there.st_mode & S_IFMT == S_IFREG && access(path, X_OK) == 0
            && (there.st_dev != running.st_dev || there.st_ino != running.st_ino)
    }
}
