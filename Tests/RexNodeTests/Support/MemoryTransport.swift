import Synchronization

@testable import RexCluster
@testable import RexFeeds
@testable import RexNode

/// An in-memory `NodeTransport`: records what a node's channels ask of the network, and lets a
/// test deliver messages to the routes that match them — the node's domain without sockets.
final class MemoryTransport: Sendable {
    /// What the node asked for, in order.
    enum Event: Hashable, Sendable {
        case connect(String)
        case disconnect(String)
        case addRoute(TopicPattern, snapshot: Bool)
        case removeRoute(TopicPattern)
        case openDedicated(String, TopicPattern)
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
        var membershipForgotten: [String] = []
    }

    /// One membership send: to member `id` (nil: a seed) at its membership endpoint.
    struct MembershipSend: Sendable {
        let id: String?
        let endpoint: String
        let bytes: [UInt8]
    }

    private let network = Mutex(Network())

    /// Messages published so far (feeds and `publish` actions), oldest first.
    var published: [(topic: String, value: String)] { network.withLock { $0.published.map { ($0.topic, $0.value) } } }
    /// Feeds' retained values, by topic.
    var retained: [String: String] { network.withLock { $0.retained } }
    var events: [Event] { network.withLock { $0.events } }
    /// Patterns routed now (shared and dedicated), sorted by their description.
    var routedPatterns: [TopicPattern] { network.withLock { $0.routes.values.map(\.pattern) }.sorted { "\($0)" < "\($1)" } }

    /// Takes the membership messages sent since the last call, oldest first.
    func takeMembershipSent() -> [MembershipSend] {
        network.withLock { network in
            defer { network.membershipSent.removeAll() }
            return network.membershipSent
        }
    }

    /// Members whose membership connection the node dropped, in order.
    var membershipForgotten: [String] { network.withLock { $0.membershipForgotten } }

    /// Hands membership bytes to the node, as its socket would (false: no receiver is open).
    @discardableResult
    func deliverMembership(_ bytes: [UInt8], from authenticated: String? = nil) -> Bool {
        guard let deliver = network.withLock({ $0.membershipDeliver }) else { return false }
        deliver(bytes, authenticated)
        return true
    }

    /// Forgets the events and messages recorded so far (routes and retained values stay).
    func clearRecords() {
        network.withLock {
            $0.events.removeAll()
            $0.published.removeAll()
        }
    }

    /// Hands `messages` to every route whose pattern matches the first message's topic (and, for a
    /// dedicated route, whose peer is `from`); returns how many routes got them.
    @discardableResult
    func deliver(_ messages: [Received], from endpoint: String? = nil) -> Int {
        guard let topic = messages.first?.topic else { return 0 }
        let targets = network.withLock { network in
            network.routes.values.filter { $0.pattern.matches(topic) && ($0.endpoint == nil || $0.endpoint == endpoint) }.map(\.deliver)
        }
        for deliver in targets { deliver(messages) }
        return targets.count
    }

    var transport: NodeTransport {
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
