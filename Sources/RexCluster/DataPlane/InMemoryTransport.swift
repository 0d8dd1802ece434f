import Synchronization

/// An in-memory data plane: records what a feature's channels ask of the network, and lets a
/// test deliver messages to the follows that match them — a feature without sockets. Give it to
/// a store through ``ClusterEnvironment/init(nodeID:inMemory:settings:clock:)``.
public final class InMemoryTransport: Sendable {
    /// What the node asked for, in order.
    public enum Event: Hashable, Sendable {
        /// A connection to a member's publisher, by endpoint.
        case connect(String)
        /// That connection closed.
        case disconnect(String)
        /// A follow from every member (with `snapshot`: retained values asked for).
        case addRoute(TopicPattern, snapshot: Bool)
        /// That follow ended.
        case removeRoute(TopicPattern)
        /// A follow from one member, over a connection of its own.
        case openDedicated(String, TopicPattern)
        /// That follow ended.
        case closeDedicated(String, TopicPattern)
    }

    private struct Route {
        let pattern: TopicPattern
        let endpoint: String?
        let deliver: @Sendable ([Received]) -> Void
    }

    private struct Network {
        var events: [Event] = []
        var published: [Outgoing] = []
        var retained: [String: String] = [:]
        var routes: [RouteID: Route] = [:]
        var nextID: UInt64 = 0
        var membershipSent: [MembershipSend] = []
        var membershipDeliver: (@Sendable ([UInt8], String?) -> Void)?
        package var membershipForgotten: [String] = []
    }

    /// One membership send: to member `id` (nil: a seed) at its membership endpoint.
    package struct MembershipSend: Sendable {
        package let id: String?
        package let endpoint: String
        package let bytes: [UInt8]
    }

    private let network = Mutex(Network())

    /// An empty network: nothing connected, routed or published.
    public init() {}

    /// Messages published so far (feeds and `publish` actions), oldest first.
    public var published: [(topic: String, value: String)] { network.withLock { $0.published.map { ($0.topic, $0.value) } } }
    /// Feeds' retained values, by topic.
    public var retained: [String: String] { network.withLock { $0.retained } }
    /// What the channels asked for so far, oldest first.
    public var events: [Event] { network.withLock { $0.events } }
    /// Patterns routed now (shared and dedicated), sorted by their description.
    package var routedPatterns: [TopicPattern] { network.withLock { $0.routes.values.map(\.pattern) }.sorted { "\($0)" < "\($1)" } }

    /// Takes the membership messages sent since the last call, oldest first.
    package func takeMembershipSent() -> [MembershipSend] {
        network.withLock { network in
            defer { network.membershipSent.removeAll() }
            return network.membershipSent
        }
    }

    /// Members whose membership connection the node dropped, in order.
    package var membershipForgotten: [String] { network.withLock { $0.membershipForgotten } }

    /// Hands membership bytes to the node, as its socket would (false: no receiver is open).
    @discardableResult
    package func deliverMembership(_ bytes: [UInt8], from authenticated: String? = nil) -> Bool {
        guard let deliver = network.withLock({ $0.membershipDeliver }) else { return false }
        deliver(bytes, authenticated)
        return true
    }

    /// Forgets the events and messages recorded so far (routes and retained values stay).
    public func clearRecords() {
        network.withLock {
            $0.events.removeAll()
            $0.published.removeAll()
        }
    }

    /// Hands `messages` to every route whose pattern matches the first message's topic (and, for a
    /// dedicated route, whose peer is `from`); returns how many routes got them.
    @discardableResult
    public func deliver(_ messages: [Received], from endpoint: String? = nil) -> Int {
        guard let topic = messages.first?.topic else { return 0 }
        let targets = network.withLock { network in
            network.routes.values.filter { $0.pattern.matches(topic) && ($0.endpoint == nil || $0.endpoint == endpoint) }.map(\.deliver)
        }
        for deliver in targets { deliver(messages) }
        return targets.count
    }

    package var transport: NodeTransport {
        NodeTransport(
            publish: { topic, value in self.network.withLock { $0.published.append(Outgoing(topic: topic, value: value)) } },
            publishRetained: { topic, value in
                self.network.withLock {
                    $0.published.append(Outgoing(topic: topic, value: value))
                    $0.retained[topic] = value
                }
            },
            forgetRetained: { topic in self.network.withLock { $0.retained[topic] = nil } },
            addRoute: { pattern, snapshot, deliver in
                self.network.withLock { network in
                    network.nextID += 1
                    network.routes[RouteID(rawValue: network.nextID)] = Route(pattern: pattern, endpoint: nil, deliver: deliver)
                    network.events.append(.addRoute(pattern, snapshot: snapshot))
                    return RouteID(rawValue: network.nextID)
                }
            },
            removeRoute: { id in
                self.network.withLock { network in
                    guard let route = network.routes.removeValue(forKey: id) else { return }
                    network.events.append(.removeRoute(route.pattern))
                }
            },
            connect: { endpoint in self.network.withLock { $0.events.append(.connect(endpoint)) } },
            disconnect: { endpoint in self.network.withLock { $0.events.append(.disconnect(endpoint)) } },
            openDedicated: { endpoint, pattern, deliver in
                self.network.withLock { network in
                    network.nextID += 1
                    network.routes[RouteID(rawValue: network.nextID)] = Route(pattern: pattern, endpoint: endpoint, deliver: deliver)
                    network.events.append(.openDedicated(endpoint, pattern))
                    return RouteID(rawValue: network.nextID)
                }
            },
            closeDedicated: { id in
                self.network.withLock { network in
                    guard let route = network.routes.removeValue(forKey: id) else { return }
                    network.events.append(.closeDedicated(route.endpoint ?? "", route.pattern))
                }
            },
            membershipSend: { id, endpoint, bytes in
                self.network.withLock { $0.membershipSent.append(MembershipSend(id: id, endpoint: endpoint, bytes: bytes)) }
            },
            membershipReceive: { deliver in self.network.withLock { $0.membershipDeliver = deliver } },
            membershipStop: { self.network.withLock { $0.membershipDeliver = nil } },
            membershipForget: { id in self.network.withLock { $0.membershipForgotten.append(id) } }
        )
    }
}
