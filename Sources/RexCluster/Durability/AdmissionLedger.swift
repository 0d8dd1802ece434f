package import RexControl

/// Which keys (the catalog's resources: a feeds node's feeds, follows and peers) a node holds
/// once every accepted operator action is applied: the limit check at the moment of acceptance,
/// exact.
///
/// The store's state lags the control endpoint by the actions still queued (and, with a
/// journal, by the ones waiting for their commit), so a check against it lets two new follows
/// pass where one fits. The journal may only hold actions the reducer will apply — or the state
/// a restart rebuilds would differ from the live one — so acceptance is decided here, by the
/// actions' own descriptions, on the keys alone.
package struct AdmissionLedger<Action: Sendable, State> {
    private let catalog: OperatorActionCatalog<Action, State>
    /// Each resource's keys, by its noun.
    private var keys: [String: Set<String>]

    package init(_ state: State, catalog: OperatorActionCatalog<Action, State>) {
        self.catalog = catalog
        keys = Dictionary(uniqueKeysWithValues: catalog.resources.map { ($0.noun, Set($0.keys(state))) })
    }

    /// Counts the keys that entered `state` other than through the control endpoint (the peers
    /// the SWIM membership reports straight to the store) in the resource `action` adds to.
    /// Call before admitting it: without them the ledger would admit a peer the reducer then
    /// refuses at the limit, and the journal would hold an action the live node never applied.
    ///
    /// Never under-counts: a member stays counted even while an operator's `removePeer` of it
    /// waits to be applied, so the ledger may refuse an `addPeer` the reducer would have taken,
    /// never the other way round.
    package mutating func countKeysFromElsewhere(for action: Action, in state: @autoclosure () -> State) {
        guard let (resource, _) = catalog.addition(action), let elsewhere = resource.keysFromElsewhere else { return }
        keys[resource.noun, default: []].formUnion(elsewhere(state()))
    }

    /// Records `action` when the reducer will apply it; throws `limitReached` (recording
    /// nothing) when the reducer would refuse it.
    package mutating func admit(_ action: Action, limits: NodeLimits, node: String) throws(ControlError) {
        guard let (description, values) = catalog.describe(action), let change = description.change,
            let key = change.key(of: values)
        else { return }
        let resource = change.resource
        switch change.kind {
        case .put:
            guard keys[resource.noun]?.contains(key) != true else { return }
            guard keys[resource.noun, default: []].count < resource.limit(limits) else {
                throw resource.limitReached(node: node, limits: limits)
            }
            keys[resource.noun, default: []].insert(key)
        case .remove:
            keys[resource.noun]?.remove(key)
        }
    }
}
