import RexCluster

/// Which routes want which topics, and what the shared subscriber must subscribe to for them.
///
/// A pure state machine (no sockets): adding or removing a route hands the subscribe and
/// unsubscribe directives its socket must carry out to a closure, in order. Subscriptions are
/// reference-counted per pattern, so two follows of one topic share one subscription, and the
/// topic is unsubscribed when the last of them goes. A route may also ask for a snapshot of its
/// pattern (see `WireMessage.snapshotTag`): that subscription is the route's own.
///
/// Every follow-topic change is one `remove` and one `add` here, so both allocate nothing in the
/// common case: the directive bytes are written into one reused buffer (the `$snap.<epoch>.`
/// part of a tag is built once, at init), and a topic with one route keeps no array of routes.
///
/// `Target` is whatever receives a route's messages (the runtime's `RouteTarget`; anything in
/// tests).
struct SubscriptionTable<Target> {
    /// What the socket must do after a change (the bytes of `directives(…)`, for tests).
    enum Directive: Equatable {
        case subscribe([UInt8])
        case unsubscribe([UInt8])
    }

    /// Whether a directive subscribes or unsubscribes.
    enum DirectiveKind: Equatable {
        case subscribe, unsubscribe
    }

    /// Carries out one directive; the bytes are valid only during the call.
    typealias Apply = (DirectiveKind, UnsafeRawBufferPointer) -> Void

    private struct Route {
        let pattern: TopicPattern
        let target: Target
        let snapshot: Bool
    }

    /// The routes of one exact topic in the order added: the first inline, the others after it
    /// (an empty array allocates nothing, so a topic with one route costs no array).
    private struct ExactRoutes {
        var first: RouteID
        var more: [RouteID] = []

        var count: Int { 1 + more.count }
    }

    /// The epoch the snapshot tags carry (the node's own).
    let epoch: UInt64
    private var routes: [RouteID: Route] = [:]
    private var nextID: UInt64 = 0
    /// Exact routes per topic. The number of routes of a topic is also the count of its
    /// subscription (`topic\0`), so exact patterns need no second dictionary.
    private var exactRoutes: [String: ExactRoutes] = [:]
    /// Prefix routes in the order they were added, their prefixes and targets side by side.
    private var prefixRoutes: [RouteID] = []
    private var prefixes: [String] = []
    private var prefixTargets: [Target] = []
    /// Routes per prefix pattern. (An exact topic `a` and the prefix `a\0` have the same bytes
    /// but count apart and subscribe them twice; libzmq counts a SUB's subscriptions, so the
    /// bytes stay until both go.)
    private var prefixCounts: [String: Int] = [:]
    /// `$snap.<epoch>.`: the start of every snapshot tag of this table.
    private let tagStart: [UInt8]
    /// The bytes of the directive being handed out, reused from one to the next.
    private var scratch: [UInt8] = []
    /// Bumped on every change, so a cache of `targets(for:)` knows when it is stale.
    private(set) var generation: UInt64 = 0

    init(epoch: UInt64) {
        self.epoch = epoch
        var start = Array(WireMessage.snapshotPrefix.utf8)
        WireMessage.appendDecimal(epoch, to: &start)
        start.append(UInt8(ascii: "."))
        tagStart = start
        scratch.reserveCapacity(128)
    }

    /// Distinct subscriptions held for patterns (snapshot requests not counted).
    var subscriptionCount: Int { exactRoutes.count + prefixCounts.count }

    /// Takes the next route id without adding a route (a dedicated socket's route, whose
    /// subscriptions its own socket carries).
    mutating func reserveID() -> RouteID {
        nextID += 1
        return RouteID(rawValue: nextID)
    }

    /// Adds a route and returns its id; `apply` gets the directives: subscribe to the pattern
    /// when it is the first route for it, then (with `snapshot`) subscribe to the route's
    /// snapshot request.
    mutating func add(_ pattern: TopicPattern, snapshot: Bool, target: Target, _ apply: Apply) -> RouteID {
        let id = reserveID()
        routes[id] = Route(pattern: pattern, target: target, snapshot: snapshot)
        generation &+= 1
        let first: Bool
        switch pattern {
        case .exact(let topic):
            if let index = exactRoutes.index(forKey: topic) {
                exactRoutes.values[index].more.append(id)
                first = false
            } else {
                exactRoutes[topic] = ExactRoutes(first: id)
                first = true
            }
        case .prefix(let prefix):
            prefixRoutes.append(id)
            resolvePrefixes()
            let count = prefixCounts[prefix, default: 0] &+ 1
            prefixCounts[prefix] = count
            first = count == 1
        }
        if first { emit(.subscribe, pattern: pattern, route: nil, apply) }
        // After the subscription itself, so every update after the snapshot's is delivered.
        if snapshot { emit(.subscribe, pattern: pattern, route: id, apply) }
        return id
    }

    /// Removes a route; `apply` gets the directives: drop its snapshot request, and unsubscribe
    /// the pattern when it was the last route for it. An unknown id does nothing.
    mutating func remove(_ id: RouteID, _ apply: Apply) {
        guard let route = routes.removeValue(forKey: id) else { return }
        generation &+= 1
        var last = false
        switch route.pattern {
        case .exact(let topic):
            if let index = exactRoutes.index(forKey: topic) {
                var entry = exactRoutes.values[index]
                if entry.more.isEmpty {
                    exactRoutes.remove(at: index)
                    last = true
                } else {
                    if entry.first == id {
                        entry.first = entry.more.removeFirst()
                    } else {
                        entry.more.removeAll { $0 == id }
                    }
                    exactRoutes.values[index] = entry
                }
            }
        case .prefix(let prefix):
            prefixRoutes.removeAll { $0 == id }
            resolvePrefixes()
            if let index = prefixCounts.index(forKey: prefix) {
                if prefixCounts.values[index] > 1 {
                    prefixCounts.values[index] -= 1
                } else {
                    prefixCounts.remove(at: index)
                    last = true
                }
            }
        }
        if route.snapshot { emit(.unsubscribe, pattern: route.pattern, route: id, apply) }
        if last { emit(.unsubscribe, pattern: route.pattern, route: nil, apply) }
    }

    /// Every target of a message on `topic`: exact routes first, then matching prefixes, each in
    /// the order added. Prefixes match bytes, as libzmq's subscriptions do.
    func targets(for topic: String) -> [Target] {
        var targets: [Target] = []
        if let exact = exactRoutes[topic] {
            if let route = routes[exact.first] { targets.append(route.target) }
            for id in exact.more { if let route = routes[id] { targets.append(route.target) } }
        }
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
        appendSnapshotRequest(for: route, pattern, to: &request)
        return request
    }

    /// `snapshotRequest(for:_:)` appended to `bytes`: the prebuilt `$snap.<epoch>.`, the route's
    /// digits and NUL, then the pattern.
    private func appendSnapshotRequest(for route: RouteID, _ pattern: TopicPattern, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: tagStart)
        WireMessage.appendDecimal(route.rawValue, to: &bytes)
        bytes.append(0)
        pattern.appendSubscription(to: &bytes)
    }

    /// Writes one directive's bytes (the pattern's subscription, or with `route` that route's
    /// snapshot request) into the reused buffer and hands them to `apply`.
    private mutating func emit(_ kind: DirectiveKind, pattern: TopicPattern, route: RouteID?, _ apply: Apply) {
        var bytes = scratch
        scratch = []  // `bytes` is the buffer's only owner while it is written
        bytes.removeAll(keepingCapacity: true)
        if let route {
            appendSnapshotRequest(for: route, pattern, to: &bytes)
        } else {
            pattern.appendSubscription(to: &bytes)
        }
        bytes.withUnsafeBytes { apply(kind, $0) }
        scratch = bytes
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

extension SubscriptionTable {
    /// `add(_:snapshot:target:_:)` with its directives collected (tests and tools).
    mutating func add(_ pattern: TopicPattern, snapshot: Bool, target: Target) -> (RouteID, [Directive]) {
        var directives: [Directive] = []
        let id = add(pattern, snapshot: snapshot, target: target) { directives.append(Directive($0, $1)) }
        return (id, directives)
    }

    /// `remove(_:_:)` with its directives collected (tests and tools).
    mutating func remove(_ id: RouteID) -> [Directive] {
        var directives: [Directive] = []
        remove(id) { directives.append(Directive($0, $1)) }
        return directives
    }
}

extension SubscriptionTable.Directive {
    init(_ kind: SubscriptionTable.DirectiveKind, _ bytes: UnsafeRawBufferPointer) {
        switch kind {
        case .subscribe: self = .subscribe(Array(bytes))
        case .unsubscribe: self = .unsubscribe(Array(bytes))
        }
    }
}
