package import RexCluster

extension AdmissionLedger where Action == NodeAction, State == NodeState {
    /// The ledger of a feeds node holding what `state` holds.
    package init(_ state: NodeState) {
        self.init(state, catalog: NodeFeature.operatorActions)
    }
}
