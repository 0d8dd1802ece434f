import RexFeeds
import RexNode

/// The node these tests run: the runtime hosting the feeds-and-follows feature.
typealias Node = RexNode.Node<NodeFeature>
