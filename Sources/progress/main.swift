import FoundationEssentials
import ProgressctlProgram
import ProgressRenderProgram
import ProgressdProgram

#if canImport(Glibc)
import Glibc
#endif

// The three programs in one file, as installed: progressd, with progressctl and
// progress-render as links to it. Which one runs is the name it was started by, so that a
// shared copy of Swift's runtime serves all three (three programs of their own were three
// times 10 MB of it).
let arguments = Array(CommandLine.arguments.dropFirst())
let environment = ProcessInfo.processInfo.environment
switch CommandLine.arguments.first.map({ $0.split(separator: "/").last.map(String.init) ?? $0 }) {
case "progressctl": exit(ProgressctlProgram.main(arguments, context: Context(environment: environment)))
case "progress-render": ProgressRenderProgram.main(arguments, environment: environment)
default: ProgressdProgram.main(arguments, environment: environment)
}
