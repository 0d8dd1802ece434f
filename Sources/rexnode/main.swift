import Foundation
import RexNode

// Thin entry point: everything lives in RexNode so tests can drive it.
exit(await NodeCommand.main(arguments: Array(CommandLine.arguments.dropFirst())))
