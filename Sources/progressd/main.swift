import Foundation
import ProgressAccessibility
import ProgressDaemon
import ProgressKDE
import ProgressDesktop
import ProgressBus
import ProgressCore
import ProgressState
import ProgressSystem
import ProgressText
import ProgressTray

/// progressd: parses its flags, resolves its locale from the environment, and runs.

let usage = """
    Usage: progressd [--max-signals-per-second N] [--max-tasks N] [--max-tasks-per-caller N]
                     [--max-reply-bytes N] [--locale-directory DIR] [--state-directory DIR]
                     [--no-kde-jobs] [--notifications none|outcomes|progress] [--notify-after SECONDS]
                     [--no-launcher-entry] [--no-accessibility] [--no-tray] [--no-system-jobs]
                     [--no-system-jobs-from SERVICE] [--system-jobs mine|all] [--version] [--help]

    Serves org.progressd.Progress1 on the session bus (DBUS_SESSION_BUS_ADDRESS).

      --max-signals-per-second N   PropertiesChanged signals per task per second
                                   (default 10, from 1 to 1000); faster changes are coalesced
      --max-tasks N                tasks the daemon holds at most (default 100000)
      --max-tasks-per-caller N     tasks one process (or sandboxed app) may hold (default 1000)
      --max-reply-bytes N          bytes in one reply at most (default 33554432, from
                                   65536 to 67108864); bigger reads are refused, to page
      --locale-directory DIR       where the message catalogs are
                                   (default: share/locale beside the bin directory)
      --state-directory DIR        where tasks are kept across restarts
                                   (default $XDG_STATE_HOME/progressd or ~/.local/state/progressd)
      --no-kde-jobs                neither serve org.kde.JobViewServer (KIO jobs as tasks)
                                   nor forward tasks to Plasma's job tracker
      --notifications MODE         desktop notifications: none, outcomes (failures, and
                                   finishes of long tasks; the default) or progress (also
                                   one per running task, updated in place)
      --notify-after SECONDS       a finish is notified when the task ran this long
                                   (default 10)
      --no-launcher-entry          neither read nor send com.canonical.Unity.LauncherEntry
                                   (progress on dock icons)
      --no-accessibility           do not publish tasks as progress bars on the AT-SPI
                                   accessibility bus (by default they are, while
                                   accessibility is on)
      --no-tray                    no StatusNotifierItem (the ring in the panel's tray, the
                                   tasks in its menu); by default there is one while tasks
                                   run, a tray is on the bus and Plasma's job tracker is not
      --no-system-jobs             do not show jobs of system services (package,
                                   firmware, disk and image transfers) from the system bus
      --no-system-jobs-from SERVICE
                                   not those of SERVICE: packagekit, udisks2, fwupd or
                                   importd (may be given more than once)
      --system-jobs mine|all       whose system jobs show: the session user's and those of
                                   no user (mine, the default), or every user's (all)
      --version                    print the version and exit
      --help                       print this help and exit

    """

var arguments = CommandLine.arguments.dropFirst()

@MainActor func wholeNumber(after flag: String, in range: ClosedRange<Int>) -> Int {
    guard let value = arguments.popFirst(), let number = Int(value), range.contains(number) else {
        FileHandle.standardError.write(Data(
            "progressd: \(flag) needs a whole number from \(range.lowerBound) to \(range.upperBound)\n".utf8))
        exit(64)
    }
    return number
}

var limits = Limits()
var kdeJobs = true
var notificationMode = NotificationOutput.Mode.outcomes
var notifyAfterSeconds = 10.0
var launcherEntry = true
var accessibility = true
var tray = true
var systemJobs = SystemJobOptions()
let environment = ProcessInfo.processInfo.environment
var stateURL = StateDirectory.defaultURL(environment: environment)
// <prefix>/bin/progressd finds <prefix>/share/locale, installed or in the build folder.
var localeURL = (Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0]))
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("share/locale")
while let argument = arguments.popFirst() {
    switch argument {
    case "--help", "-h":
        print(usage, terminator: "")
        exit(0)
    case "--version":
        print("progressd \(ProgressVersion.current)")
        exit(0)
    case "--max-signals-per-second":
        limits.maxSignalsPerSecond = wholeNumber(after: argument, in: Limits.signalRateRange)
    case "--locale-directory":
        guard let path = arguments.popFirst(), !path.isEmpty else {
            FileHandle.standardError.write(Data("progressd: --locale-directory needs a directory\n".utf8))
            exit(64)
        }
        localeURL = URL(fileURLWithPath: path)
    case "--state-directory":
        guard let path = arguments.popFirst(), !path.isEmpty else {
            FileHandle.standardError.write(Data("progressd: --state-directory needs a directory\n".utf8))
            exit(64)
        }
        stateURL = URL(fileURLWithPath: path)
    case "--no-kde-jobs":
        kdeJobs = false
    case "--notifications":
        guard let value = arguments.popFirst(), let mode = NotificationOutput.Mode(rawValue: value) else {
            FileHandle.standardError.write(Data("progressd: --notifications needs none, outcomes or progress\n".utf8))
            exit(64)
        }
        notificationMode = mode
    case "--notify-after":
        guard let value = arguments.popFirst(), let seconds = Double(value), seconds.isFinite, seconds >= 0, seconds <= 86_400 else {
            FileHandle.standardError.write(Data("progressd: --notify-after needs seconds from 0 to 86400\n".utf8))
            exit(64)
        }
        notifyAfterSeconds = seconds
    case "--no-launcher-entry":
        launcherEntry = false
    case "--no-accessibility":
        accessibility = false
    case "--no-tray":
        tray = false
    case "--no-system-jobs":
        systemJobs.services = []
    case "--no-system-jobs-from":
        guard let value = arguments.popFirst(), let service = SystemJobOptions.Service(rawValue: value) else {
            FileHandle.standardError.write(Data("progressd: --no-system-jobs-from needs packagekit, udisks2, fwupd or importd\n".utf8))
            exit(64)
        }
        systemJobs.services.remove(service)
    case "--system-jobs":
        guard let value = arguments.popFirst(), ["mine", "all"].contains(value) else {
            FileHandle.standardError.write(Data("progressd: --system-jobs needs mine or all\n".utf8))
            exit(64)
        }
        systemJobs.allUsers = value == "all"
    case "--max-tasks":
        limits.maxTasks = wholeNumber(after: argument, in: 1...10_000_000)
    case "--max-reply-bytes":
        limits.maxReplyBytes = wholeNumber(after: argument, in: Limits.replyBytesRange)
    case "--max-tasks-per-caller":
        limits.maxTasksPerCaller = wholeNumber(after: argument, in: 1...10_000_000)
    default:
        FileHandle.standardError.write(Data("progressd: unknown argument '\(argument)'\n\(usage)".utf8))
        exit(64)
    }
}

/// The exit status for a state directory the daemon can not use: systemd's unit lists it in
/// RestartPreventExitStatus=, since restarting can not fix it (1 stays "lost the bus: restart").
let unusableStateStatus: Int32 = 78  // EX_CONFIG

let state: StateDirectory
do {
    state = try StateDirectory(url: stateURL, limits: limits)
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
    textsForLocale: { (text: String) throws(ProgressError) -> TaskDescribing in try describers.describer(forClientLocale: text) },
    journal: state, restoredRecords: records)
exit(Daemon(configuration: configuration).run { (context: DaemonContext) throws(DaemonError) in
    // The optional parts of the one ordered list, one line each: `context.add(SomePart(context: context))`.
    // Inputs start only after the last line, once every output has heard the restored tasks.
    if kdeJobs { context.add(try JobViewServerInput(context: context)) }
    if kdeJobs { context.add(JobViewForwarder(context: context)) }
    if launcherEntry { context.add(LauncherEntryInput(context: context)) }
    if launcherEntry { context.add(LauncherEntryOutput(context: context)) }
    if notificationMode != .none { context.add(NotificationOutput(context: context, mode: notificationMode, notifyAfterSeconds: notifyAfterSeconds)) }
    if accessibility { context.add(AccessibilityExport(context: context, locale: daemonLocale.identifier)) }
    if tray { context.add(try TrayOutput(context: context, locale: daemonLocale.identifier, stepAsideForJobTracker: kdeJobs)) }
    if systemJobs.any { context.add(SystemJobs(context: context, options: systemJobs, catalog: catalog, locale: daemonLocale)) }
})
