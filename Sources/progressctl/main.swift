import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import ProgressControl

/// progressctl: the command-line client of progressd.
exit(ProgressControl.main(Array(CommandLine.arguments.dropFirst()), context: Context(environment: ProcessInfo.processInfo.environment)))
