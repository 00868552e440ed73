import FoundationEssentials
import ProgressdProgram

ProgressdProgram.main(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
