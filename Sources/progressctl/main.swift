import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import ProgressctlProgram

/// progressctl: the command-line client of progressd.
exit(ProgressctlProgram.main(
    Array(CommandLine.arguments.dropFirst()), context: Context(environment: ProcessInfo.processInfo.environment)))
