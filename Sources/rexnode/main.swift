import Foundation
import RexFeeds
import RexNode

// The feeds-and-follows feature on the node runtime: everything else lives in RexNode (the
// runtime) and RexFeeds (the feature), so tests can drive both.
exit(await NodeCommand.main(NodeFeature.self, arguments: Array(CommandLine.arguments.dropFirst())))
