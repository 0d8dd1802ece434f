package import RexCluster

/// The journal's records of a feeds node's actions (``OperatorActionCatalog/appendRecord(_:to:)``
/// with the feeds catalog).
package enum ActionRecord {
    /// The node's actions and their tags.
    package static var catalog: OperatorActionCatalog<NodeAction, NodeState> { NodeFeature.operatorActions }

    /// True for the actions the journal keeps: those that change the operator-owned part of the
    /// state (`publish` sends one message and leaves nothing behind; the rest are channel events).
    package static func isDurable(_ action: NodeAction) -> Bool {
        catalog.isJournaled(action)
    }

    /// Appends `action` to `bytes`; false (and nothing appended) for an action the journal does
    /// not keep.
    @discardableResult
    package static func append(_ action: NodeAction, to bytes: inout [UInt8]) -> Bool {
        catalog.appendRecord(action, to: &bytes)
    }

    package typealias Malformed = MalformedRecord

    /// Every record in `bytes`, in order.
    package static func decode(_ bytes: [UInt8]) throws(Malformed) -> [NodeAction] {
        var actions: [NodeAction] = []
        try catalog.decodeRecords(bytes) { actions.append($0) }
        return actions
    }

    /// Calls `body` with every record in `bytes`, in order.
    package static func decode(_ bytes: [UInt8], _ body: (NodeAction) -> Void) throws(Malformed) {
        try catalog.decodeRecords(bytes, body)
    }
}
