import Foundation
import ProgressBus
import ProgressCore
import ProgressText

/// progressd: parses its flags, resolves its locale from the environment, and runs.
let usage = """
    Usage: progressd [--max-signals-per-second N] [--version] [--help]

    Serves org.progressd.Progress1 on the session bus (DBUS_SESSION_BUS_ADDRESS).

      --max-signals-per-second N   PropertiesChanged signals per task per second
                                   (default 10, from 1 to 1000); faster changes are coalesced
      --version                    print the version and exit
      --help                       print this help and exit

    """

var limits = Limits()
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--help", "-h":
        print(usage, terminator: "")
        exit(0)
    case "--version":
        print("progressd \(ProgressVersion.current)")
        exit(0)
    case "--max-signals-per-second":
        guard let value = arguments.popFirst(), let rate = Int(value), Limits.signalRateRange.contains(rate) else {
            FileHandle.standardError.write(Data(
                "progressd: --max-signals-per-second needs a whole number from \(Limits.signalRateRange.lowerBound) to \(Limits.signalRateRange.upperBound)\n".utf8))
            exit(64)
        }
        limits.maxSignalsPerSecond = rate
    default:
        FileHandle.standardError.write(Data("progressd: unknown argument '\(argument)'\n\(usage)".utf8))
        exit(64)
    }
}

let labelCache = PercentLabelCache()
let daemonLocale = LocaleName.fromEnvironment(ProcessInfo.processInfo.environment)
let configuration = ServiceConfiguration(
    limits: limits, version: ProgressVersion.current, labels: labelCache.labels(for: daemonLocale),
    labelsForLocale: { (text: String) throws(ProgressError) -> PercentLabeling in try labelCache.labels(forClientLocale: text) })
exit(Daemon(configuration: configuration).run())
