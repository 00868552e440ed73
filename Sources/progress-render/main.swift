import FoundationEssentials
import ProgressRenderProgram

ProgressRenderProgram.main(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
