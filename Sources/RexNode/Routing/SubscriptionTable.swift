/// Which routes want which topics, and what the shared subscriber must subscribe to for them.
///
/// A pure state machine (no sockets): adding or removing a route returns the subscribe and
/// unsubscribe directives its socket must carry out. Subscriptions are reference-counted per
/// pattern, so two follows of one topic share one subscription, and the topic is unsubscribed
/// when the last of them goes. A route may also ask for a snapshot of its pattern (see
/// `WireMessage.snapshotTag`): that subscription is the route's own.
///
/// `Target` is whatever receives a route's messages (the runtime's `RouteTarget`; anything in
/// tests).
struct SubscriptionTable<Target> {
    /// What the socket must do after a change.
    enum Directive: Equatable {
        case subscribe([UInt8])
        case unsubscribe([UInt8])
    }

    private struct Route {
        let pattern: TopicPattern
        let target: Target
        let snapshot: Bool
    }

    /// The epoch the snapshot tags carry (the node's own).
    let epoch: UInt64
    private var routes: [RouteID: Route] = [:]
    private var nextID: UInt64 = 0
    private var exactRoutes: [String: [RouteID]] = [:]
    /// Prefix routes in the order they were added, their prefixes and targets side by side.
    private var prefixRoutes: [RouteID] = []
    private var prefixes: [String] = []
    private var prefixTargets: [Target] = []
    /// Routes per pattern. Keyed by the pattern, not its subscription bytes: a string hashes in
    /// one pass, a byte array one byte at a time, and the bytes are built only for a directive.
    /// (Two patterns whose bytes coincide, `a` exact and `a\0` prefix, count apart and subscribe
    /// the bytes twice; libzmq counts a SUB's subscriptions, so the bytes stay until both go.)
    private var subscriptionCounts: [TopicPattern: Int] = [:]
    /// Bumped on every change, so a cache of `targets(for:)` knows when it is stale.
    private(set) var generation: UInt64 = 0

    init(epoch: UInt64) {
        self.epoch = epoch
    }

    /// Distinct subscriptions held for patterns (snapshot requests not counted).
    var subscriptionCount: Int { subscriptionCounts.count }

    /// Takes the next route id without adding a route (a dedicated socket's route, whose
    /// subscriptions its own socket carries).
    mutating func reserveID() -> RouteID {
        nextID += 1
        return RouteID(rawValue: nextID)
    }

    /// Adds a route; returns its id and the directives: subscribe to the pattern when it is the
    /// first route for it, then (with `snapshot`) subscribe to the route's snapshot request.
    mutating func add(_ pattern: TopicPattern, snapshot: Bool, target: Target) -> (RouteID, [Directive]) {
        let id = reserveID()
        routes[id] = Route(pattern: pattern, target: target, snapshot: snapshot)
        switch pattern {
        case .exact(let topic):
            exactRoutes[topic, default: []].append(id)
        case .prefix:
            prefixRoutes.append(id)
            resolvePrefixes()
        }
        generation &+= 1
        var directives: [Directive] = []
        let routes = subscriptionCounts[pattern, default: 0] &+ 1
        subscriptionCounts[pattern] = routes
        if routes == 1 { directives.append(.subscribe(pattern.subscription)) }
        // After the subscription itself, so every update after the snapshot's is delivered.
        if snapshot { directives.append(.subscribe(snapshotRequest(for: id, pattern))) }
        return (id, directives)
    }

    /// Removes a route; returns the directives: drop its snapshot request, and unsubscribe the
    /// pattern when it was the last route for it.
    mutating func remove(_ id: RouteID) -> [Directive] {
        guard let route = routes.removeValue(forKey: id) else { return [] }
        switch route.pattern {
        case .exact(let topic):
            exactRoutes[topic]?.removeAll { $0 == id }
            if exactRoutes[topic]?.isEmpty == true { exactRoutes[topic] = nil }
        case .prefix:
            prefixRoutes.removeAll { $0 == id }
            resolvePrefixes()
        }
        generation &+= 1
        var directives: [Directive] = []
        if route.snapshot { directives.append(.unsubscribe(snapshotRequest(for: id, route.pattern))) }
        if let index = subscriptionCounts.index(forKey: route.pattern) {
            if subscriptionCounts.values[index] > 1 {
                subscriptionCounts.values[index] -= 1
            } else {
                subscriptionCounts.remove(at: index)
                directives.append(.unsubscribe(route.pattern.subscription))
            }
        }
        return directives
    }

    /// Every target of a message on `topic`: exact routes first, then matching prefixes, each in
    /// the order added. Prefixes match bytes, as libzmq's subscriptions do.
    func targets(for topic: String) -> [Target] {
        var targets = exactRoutes[topic]?.compactMap { routes[$0]?.target } ?? []
        for index in prefixes.indices where topic.utf8.starts(with: prefixes[index].utf8) {
            targets.append(prefixTargets[index])
        }
        return targets
    }

    /// The target a snapshot answer for `route` goes to, while that route exists.
    func snapshotTarget(_ route: RouteID) -> Target? {
        guard let entry = routes[route], entry.snapshot else { return nil }
        return entry.target
    }

    /// The subscription that asks for a snapshot of `pattern` for `route`: its tag, then the
    /// pattern's own subscription bytes.
    func snapshotRequest(for route: RouteID, _ pattern: TopicPattern) -> [UInt8] {
        var request: [UInt8] = []
        WireMessage.appendSnapshotTag(epoch: epoch, route: route.rawValue, to: &request)
        pattern.appendSubscription(to: &request)
        return request
    }

    private mutating func resolvePrefixes() {
        prefixes.removeAll(keepingCapacity: true)
        prefixTargets.removeAll(keepingCapacity: true)
        for id in prefixRoutes {
            guard let route = routes[id], case .prefix(let prefix) = route.pattern else { continue }
            prefixes.append(prefix)
            prefixTargets.append(route.target)
        }
    }
}

/// Identifies a route (shared or dedicated) for as long as it exists.
struct RouteID: Hashable, Sendable {
    let rawValue: UInt64
}
