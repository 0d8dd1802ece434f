import RexFeeds
import RexNode

/// The node the benchmarks run: the runtime hosting the feeds-and-follows feature.
typealias Node = RexNode.Node<NodeFeature>
