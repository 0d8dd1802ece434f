import RexFeeds

@testable import RexNode

/// The node these tests run: the runtime hosting the feeds-and-follows feature.
typealias Node = RexNode.Node<NodeFeature>

// The runtime's durability, as a feeds node runs it.
typealias NodeJournal = RexNode.NodeJournal<NodeFeature>
typealias JournalWriter = RexNode.JournalWriter<NodeFeature>
typealias DurableDispatch = RexNode.DurableDispatch<NodeFeature>
