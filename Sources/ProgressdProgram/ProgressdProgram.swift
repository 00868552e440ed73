import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import ProgressAccessibility
import ProgressDaemon
import ProgressKDE
import ProgressDesktop
import ProgressBus
import ProgressCommandLine
import ProgressModel
import ProgressState
import ProgressSystem
import ProgressText
import ProgressTray

/// progressd: parses its flags, resolves its locale from the environment, and runs.
public enum ProgressdProgram {
    static let syntax = CommandSyntax(program: "progressd", help: #"""
        Usage: progressd [OPTIONS]

        Serves org.progressd.Progress1 on the session bus (DBUS_SESSION_BUS_ADDRESS).

        Options:
          --max-signals-per-second N         PropertiesChanged signals per task per second
                                             (default 10, from 1 to 1000); faster changes
                                             are coalesced
          --max-tasks N                      tasks the daemon holds at most (default 100000)
          --max-tasks-per-caller N           tasks one process (or sandboxed app) may hold
                                             (default 1000)
          --max-reply-bytes N                bytes in one reply at most (default 33554432,
                                             from 65536 to 67108864); bigger reads are
                                             refused, to page
          --max-reply-values N               values in one reply at most (default 131072,
                                             from 4096 to 1073741824): each costs the bus
                                             connection time while others wait; bigger
                                             reads are refused, to page
          --locale-directory DIR             where the message catalogs are (default:
                                             share/locale beside the bin directory)
          --state-directory DIR              where tasks are kept across restarts (default
                                             $XDG_STATE_HOME/progressd or
                                             ~/.local/state/progressd)
          --no-kde-jobs                      neither serve org.kde.JobViewServer (KIO jobs
                                             as tasks) nor forward tasks to Plasma's job
                                             tracker
          --notifications MODE               desktop notifications: none, outcomes
                                             (failures, and finishes of long tasks; the
                                             default) or progress (also one per running
                                             task, updated in place)
          --notify-after SECONDS             a finish is notified when the task ran this
                                             long (default 10)
          --no-launcher-entry                neither read nor send
                                             com.canonical.Unity.LauncherEntry (progress on
                                             dock icons)
          --no-accessibility                 do not publish tasks as progress bars on the
                                             AT-SPI accessibility bus (by default they are,
                                             while accessibility is on)
          --no-tray                          no StatusNotifierItem (the ring in the panel's
                                             tray, the tasks in its menu); by default there
                                             is one while tasks run, a tray is on the bus
                                             and Plasma's job tracker is not
          --no-system-jobs                   do not show jobs of system services (package,
                                             firmware, disk and image transfers) from the
                                             system bus
          --no-system-jobs-from SERVICE...   not those of SERVICE: packagekit, udisks2,
                                             fwupd or importd
          --system-jobs mine|all             whose system jobs show: the session user's and
                                             those of no user (mine, the default), or every
                                             user's (all)
          --version                          print the version and exit
          --help                             print this help and exit

        Examples:
          progressd --notifications progress --no-tray
        """#)

    /// Runs the program with its arguments (without its own name) and environment.
    public static func main(_ arguments: [String], environment: [String: String]) -> Never {
        let arguments = syntax.parseOrExit(arguments, version: ProgressVersion.current)
        var limits = Limits()
        let notificationMode: NotificationOutput.Mode
        let notifyAfterSeconds: Double
        var systemJobs = SystemJobOptions()
        var stateURL = StateDirectory.defaultURL(environment: environment)
        // <prefix>/bin/progressd finds <prefix>/share/locale, installed or in the build folder.
        var localeURL = URL(fileURLWithPath: executablePath()).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("share/locale")

        do throws(UsageError) {
            if let rate = try arguments.wholeNumber("max-signals-per-second", in: Limits.signalRateRange) {
                limits.maxSignalsPerSecond = rate
            }
            if let tasks = try arguments.wholeNumber("max-tasks", in: 1...10_000_000) { limits.maxTasks = tasks }
            if let tasks = try arguments.wholeNumber("max-tasks-per-caller", in: 1...10_000_000) {
                limits.maxTasksPerCaller = tasks
            }
            if let bytes = try arguments.wholeNumber("max-reply-bytes", in: Limits.replyBytesRange) {
                limits.maxReplyBytes = bytes
            }
            if let values = try arguments.wholeNumber("max-reply-values", in: Limits.replyValuesRange) {
                limits.maxReplyValues = values
            }
            if let path = try arguments.path("locale-directory", of: "directory") {
                localeURL = URL(fileURLWithPath: path)
            }
            if let path = try arguments.path("state-directory", of: "directory") {
                stateURL = URL(fileURLWithPath: path)
            }
            notificationMode = try arguments.value("notifications", as: NotificationOutput.Mode.self) ?? .outcomes
            notifyAfterSeconds = try arguments.number("notify-after", in: 0...86_400, kind: "seconds") ?? 10
            if arguments.has("no-system-jobs") { systemJobs.services = [] }
            for service in try arguments.all("no-system-jobs-from", as: SystemJobOptions.Service.self) {
                systemJobs.services.remove(service)
            }
            systemJobs.allUsers = try arguments.choice("system-jobs") == "all"
            _ = try arguments.positionals()
        } catch {
            syntax.fail(error.message)
        }
        let kdeJobs = !arguments.has("no-kde-jobs")
        let launcherEntry = !arguments.has("no-launcher-entry")
        let accessibility = !arguments.has("no-accessibility")
        let tray = !arguments.has("no-tray")

        /// The exit status for a state directory the daemon can not use: systemd's unit lists it in
        /// RestartPreventExitStatus=, since restarting can not fix it (1 stays "lost the bus: restart").
        let unusableStateStatus: Int32 = 78  // EX_CONFIG

        let state: StateDirectory
        let lock: StateLock
        do {
            state = try StateDirectory(url: stateURL, limits: limits)
            lock = try takeLock(of: stateURL, environment: environment)
        } catch {
            Log.error("\(error)")
            exit(unusableStateStatus)
        }
        state.log = { Log.error($0) }
        let (records, problems) = state.load()
        for problem in problems { Log.error(problem) }

        // Before any other thread exists: reading the catalogs switches LANGUAGE (see MessageCatalog).
        let catalog = MessageCatalog(directory: localeURL)
        let describers = DescriberCache(catalog: catalog)
        let daemonLocale = LocaleName.fromEnvironment(environment)
        let configuration = ServiceConfiguration(
            limits: limits, version: ProgressVersion.current, texts: describers.describer(for: daemonLocale),
            textsForLocale: { (text: String) throws(ProgressError) -> TaskDescribing in
                try describers.describer(forClientLocale: text)
            },
            journal: state, restoredRecords: records, program: executablePath())
        let daemon = Daemon(configuration: configuration)
        let status = daemon.run { (context: DaemonContext) throws(DaemonError) in
            // The optional parts of the one ordered list, one `context.add(SomePart(context: context))`
            // each. Inputs start only after the last one, once every output has heard the restored tasks.
            if kdeJobs { context.add(try JobViewServerInput(context: context)) }
            if kdeJobs { context.add(JobViewForwarder(context: context)) }
            if launcherEntry { context.add(LauncherEntryInput(context: context)) }
            if launcherEntry { context.add(try LauncherEntryOutput(context: context)) }
            if notificationMode != .none {
                context.add(NotificationOutput(
                    context: context, mode: notificationMode, notifyAfterSeconds: notifyAfterSeconds))
            }
            if accessibility { context.add(AccessibilityExport(context: context, locale: daemonLocale.identifier)) }
            if tray {
                context.add(
                    try TrayOutput(context: context, locale: daemonLocale.identifier, stepAsideForJobTracker: kdeJobs))
            }
            if systemJobs.any {
                context.add(SystemJobs(context: context, options: systemJobs, catalog: catalog, locale: daemonLocale))
            }
        }
        if let program = daemon.replacement { execute(program, keeping: lock) }
        exit(status)
    }

    /// The state directory's lock (`StateLock`). Another progressd holding it is serving
    /// this directory, or handing over to its upgraded program: this one stands by until
    /// that one owns the bus name, and ends (exit 1, as a second daemon always did), or
    /// until the lock is free, and goes on.
    private static func takeLock(
        of directory: URL, environment: [String: String]
    ) throws(StateDirectoryError) -> StateLock {
        var taken: StateLock?
        let outcome = try StateLock.take(in: directory, environment: environment)
        switch outcome {
        case .held(let lock): return lock
        case .taken(let holder):
            let who = holder.map { "progressd \($0)" } ?? "another progressd"
            Log.notice("\(who) holds the state directory \(directory.path): waiting for it to own \(BusNames.busName)")
            let waited = StandBy.wait(for: BusNames.busName, seconds: 30) {
                let fresh = environment.filter { $0.key != StateLock.inheritedVariable }
                if case .held(let lock)? = try? StateLock.take(in: directory, environment: fresh) { taken = lock }
                return taken != nil
            }
            switch waited {
            case .mayStart:
                if let taken { return taken }
                exit(1)
            case .owned:
                // The bus gives the calls it held for the name to its owner, whatever this exit says.
                Log.error(
                    "could not own \(BusNames.busName): another instance is running "
                        + "(\(who), which holds \(directory.path))")
                exit(1)
            case .timedOut:
                Log.error(
                    "\(who) holds the state directory \(directory.path) "
                        + "but did not own \(BusNames.busName) within 30 s")
                exit(1)
            case .noBus(let message):
                Log.error("could not connect to the session bus: \(message)")
                exit(1)
            }
        }
    }

    /// Starts `program` in this process (the same arguments and process id), keeping the
    /// state directory's lock for it; on failure the daemon has stopped cleanly, and exits 1
    /// so that systemd or the next call starts it again.
    private static func execute(_ program: String, keeping lock: StateLock) -> Never {
        lock.keepAcrossExec()
        let arguments = CommandLine.arguments.map { strdup($0) } + [nil]
        execv(program, arguments)
        Log.error("could not start \(program): \(String(cString: strerror(errno)))")
        exit(1)
    }

    /// This program's file, links resolved, as the kernel knows it.
    private static func executablePath() -> String {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = buffer.withUnsafeMutableBytes {
            readlink("/proc/self/exe", $0.baseAddress!.assumingMemoryBound(to: CChar.self), $0.count - 1)
        }
        return length > 0 ? String(decoding: buffer[..<length], as: UTF8.self) : CommandLine.arguments[0]
    }
}
