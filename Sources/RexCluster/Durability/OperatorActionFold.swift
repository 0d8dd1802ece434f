/// What survives a node's process, as a fold of the operator actions it accepted: for every key
/// of every resource of the catalog, the last journaled action that put or removed it.
///
/// A removal is kept only where its resource remembers removals (a configured peer an operator
/// removed stays removed across restarts); elsewhere a removed key is simply gone. Replaying
/// ``actions`` through the feature's reducer rebuilds the operator-owned part of its state.
public struct OperatorActionFold<Action: Sendable & Equatable, State>: Sendable, Equatable {
    /// What an operator's last action left for one key.
    enum Entry: Sendable, Equatable {
        /// The key holds what this action put.
        case put(Action)
        /// The key was removed (kept only where the resource remembers removals).
        case removed(Action)
    }

    /// The actions it folds, and their resources.
    public let catalog: OperatorActionCatalog<Action, State>
    /// Each resource's keys, by its noun: the last accepted action per key.
    private var entries: [String: [String: Entry]] = [:]

    /// An empty fold of the actions `catalog` describes.
    public init(_ catalog: OperatorActionCatalog<Action, State>) {
        self.catalog = catalog
    }

    /// Equal when every resource holds the same keys (a resource with none, or room reserved
    /// for some, is the same as one never touched).
    public static func == (lhs: OperatorActionFold, rhs: OperatorActionFold) -> Bool {
        lhs.entries.filter { !$0.value.isEmpty } == rhs.entries.filter { !$0.value.isEmpty }
    }

    /// Folds one accepted action in (actions that are not journaled change nothing).
    public mutating func apply(_ action: Action) {
        guard let (description, values) = catalog.describe(action), description.journal != nil,
            let change = description.change, let key = change.key(of: values)
        else { return }
        let resource = change.resource
        switch change.kind {
        case .put: entries[resource.noun, default: [:]][key] = .put(action)
        case .remove where resource.keepsRemovals: entries[resource.noun, default: [:]][key] = .removed(action)
        case .remove: entries[resource.noun]?[key] = nil
        }
    }

    /// The keys it holds (removals remembered count too).
    public var count: Int { entries.values.reduce(0) { $0 + $1.count } }

    /// Room for `more` keys of `resource` at once, rather than by doubling (each doubling
    /// rehashes every key and frees the old table).
    public mutating func reserveCapacity(_ more: Int, in resource: OperatorResource<State>) {
        entries[resource.noun, default: [:]].reserveCapacity((entries[resource.noun]?.count ?? 0) + more)
    }

    /// The actions that put the keys of `resource`, in no order.
    public func puts(of resource: OperatorResource<State>) -> some Collection<Action> {
        (entries[resource.noun] ?? [:]).values.lazy.compactMap { if case .put(let action) = $0 { action } else { nil } }
    }

    /// The removals of `resource` it remembers, in no order.
    public func removals(of resource: OperatorResource<State>) -> some Collection<Action> {
        (entries[resource.noun] ?? [:]).values.lazy.compactMap { if case .removed(let action) = $0 { action } else { nil } }
    }

    /// The keys whose removal it remembers, in every resource (a configured peer an operator
    /// removed: the node does not bring it back on restart).
    public var removedKeys: Set<String> {
        var keys: Set<String> = []
        for resource in entries.values {
            for case (let key, .removed) in resource { keys.insert(key) }
        }
        return keys
    }

    /// Actions that rebuild the folded state, in an order that never passes a limit the live
    /// node kept: resource by resource in the catalog's order, each resource's removals before
    /// its puts; each group sorted by key, so a snapshot's bytes depend on the state alone.
    public var actions: [Action] {
        var actions: [Action] = []
        actions.reserveCapacity(count)
        for resource in catalog.resources {
            let keyed = (entries[resource.noun] ?? [:]).sorted { $0.key < $1.key }
            for case (_, .removed(let action)) in keyed { actions.append(action) }
            for case (_, .put(let action)) in keyed { actions.append(action) }
        }
        return actions
    }
}
