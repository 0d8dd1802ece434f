import RexCluster
import RexFeeds
import RexNode

extension NodeCommand.Invocation {
    /// The configuration of a `run` invocation, nil for `help`: for `#require`, so a test that
    /// expected a run fails instead of ending early.
    var runConfiguration: NodeConfiguration? {
        if case .run(let configuration) = self { configuration } else { nil }
    }
}
