#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Thin entry: all logic lives in RexCtl.main so tests can run it in-process.
exit(
    RexCtl.main(
        arguments: Array(CommandLine.arguments.dropFirst()),
        stdout: FileDescriptorOutput.standardOutput(),
        stderr: FileDescriptorOutput.standardError()))
