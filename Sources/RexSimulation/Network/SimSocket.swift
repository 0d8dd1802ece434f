import RexCluster

/// A node process's subscriber socket: the shared one (every follow without `from`) or a
/// dedicated one (one follow from one member). It holds reference-counted subscriptions and
/// snapshot requests, sent up every connection; what arrives is routed on its process's
/// executor to the routes whose pattern matches, or to the one route a snapshot answers.
final class SimSocket {
    struct Route {
        let pattern: TopicPattern
        let deliver: @Sendable ([Received]) -> Void
    }

    unowned let stack: SimTransport
    var node: Int { stack.node }
    var epoch: UInt64 { stack.epoch }
    private unowned let network: SimNetwork
    private var counts: [TopicPattern: Int] = [:]
    /// Distinct subscriptions, in the order first made (what a reconnect sends again).
    private(set) var patterns: [TopicPattern] = []
    /// Snapshot requests by route, oldest first.
    private(set) var snapshotRequests: [(RouteID, TopicPattern)] = []
    /// The routes this socket feeds, by id (ids only grow: sorted = oldest first).
    private var routes: [RouteID: Route] = [:]
    private var connections: [String: (count: Int, connection: SimConnection)] = [:]
    private var endpoints: [String] = []

    init(stack: SimTransport, network: SimNetwork) {
        self.stack = stack
        self.network = network
    }

    // MARK: - Routes and subscriptions

    func add(_ id: RouteID, _ route: Route, snapshot: Bool) {
        routes[id] = route
        counts[route.pattern, default: 0] += 1
        if counts[route.pattern] == 1 {
            patterns.append(route.pattern)
            forEachConnection { $0.sendUp(.subscribe(route.pattern)) }
        }
        guard snapshot else { return }
        snapshotRequests.append((id, route.pattern))
        forEachConnection { $0.sendUp(.snapshotRequest(id, route.pattern, requester: epoch)) }
    }

    func remove(_ id: RouteID) {
        guard let route = routes.removeValue(forKey: id) else { return }
        snapshotRequests.removeAll { $0.0 == id }
        guard let count = counts[route.pattern] else { return }
        if count > 1 {
            counts[route.pattern] = count - 1
            return
        }
        counts[route.pattern] = nil
        patterns.removeAll { $0 == route.pattern }
        forEachConnection { $0.sendUp(.unsubscribe(route.pattern)) }
    }

    // MARK: - Connections

    /// Distinct endpoints connected.
    var connectionCount: Int { endpoints.count }

    /// Connects to `endpoint` (counted); false when it is not a node's publisher.
    @discardableResult
    func connect(_ endpoint: String) -> Bool {
        if let existing = connections[endpoint] {
            connections[endpoint] = (existing.count + 1, existing.connection)
            return true
        }
        guard let publisherNode = network.node(ofEndpoint: endpoint) else { return false }
        let connection = SimConnection(socket: self, publisherNode: publisherNode, network: network)
        connections[endpoint] = (1, connection)
        endpoints.append(endpoint)
        network.add(connection)
        return true
    }

    func disconnect(_ endpoint: String) {
        guard let existing = connections[endpoint] else { return }
        if existing.count > 1 {
            connections[endpoint] = (existing.count - 1, existing.connection)
            return
        }
        connections[endpoint] = nil
        endpoints.removeAll { $0 == endpoint }
        network.remove(existing.connection)
    }

    /// Closes every connection (the socket is closed, or its process died).
    func close() {
        for endpoint in endpoints { network.remove(connections[endpoint]!.connection) }
        connections = [:]
        endpoints = []
    }

    private func forEachConnection(_ body: (SimConnection) -> Void) {
        for endpoint in endpoints { body(connections[endpoint]!.connection) }
    }

    // MARK: - Receiving

    /// A frame arrived on one of its connections: routed on the process's executor (a paused
    /// process has stalled the pipe before this).
    func receive(_ frame: Frame) {
        guard case .data(let message, let snapshotRoute) = frame else { return }
        stack.onExecutor { [self] in
            if let snapshotRoute {
                routes[snapshotRoute]?.deliver([message])
                return
            }
            for id in routes.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
                guard let route = routes[id], route.pattern.matches(message.topic) else { continue }
                route.deliver([message])
            }
        }
    }
}
