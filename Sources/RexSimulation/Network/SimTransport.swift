import RexCluster

/// One node process's sockets in the simulated network, and the `NodeTransport` its store's
/// channels use: a publisher, the shared subscriber socket, a dedicated socket per follow
/// `from` a member, the membership link and its one timer.
///
/// Killing the process (``kill()``) makes every closure a no-op: what the dying store's channel
/// cancels still call reaches nothing, as nothing leaves a process after `kill -9`.
final class SimTransport: @unchecked Sendable {
    // @unchecked Sendable: the transport's closures are called on its node's executor or by the
    // loop, all on the loop's thread; `executor.execute` checks it (`SimLoop.enqueue`).

    let node: Int
    let epoch: UInt64
    let publisher: SimPublisher
    private unowned let network: SimNetwork
    private let executor: SimExecutor
    private var shared: SimSocket!
    private var dedicated: [RouteID: SimSocket] = [:]
    private var sharedRoutes: Set<RouteID> = []
    private var nextRoute: UInt64 = 0
    private var membershipDeliver: (@Sendable ([UInt8], String?) -> Void)?
    private var membershipTimer: UInt64?
    private(set) var alive = true

    init(node: Int, epoch: UInt64, network: SimNetwork, executor: SimExecutor) {
        self.node = node
        self.epoch = epoch
        self.network = network
        self.executor = executor
        publisher = SimPublisher(node: node, epoch: epoch, history: network.history)
        shared = SimSocket(stack: self, network: network)
    }

    /// Runs `body` on the process's executor, unless the process has died by then.
    func onExecutor(_ body: @escaping () -> Void) {
        network.loop.enqueue(
            .local { [weak self] in
                guard self?.alive == true else { return }
                body()
            }, on: executor.index)
    }

    /// Membership bytes for this process (handed to its machine on its executor).
    func receiveMembership(_ bytes: [UInt8]) {
        onExecutor { [weak self] in self?.membershipDeliver?(bytes, nil) }
    }

    /// The process dies: sockets closed, timer gone, every later call a no-op.
    func kill() {
        guard alive else { return }
        alive = false
        if let membershipTimer { network.loop.cancelTimer(membershipTimer) }
        membershipDeliver = nil
        shared.close()
        for id in dedicated.keys.sorted(by: { $0.rawValue < $1.rawValue }) { dedicated[id]!.close() }
        dedicated = [:]
        network.unregister(self)
    }

    /// Routes held now (shared and dedicated): one per live follow channel.
    var routeCount: Int { sharedRoutes.count + dedicated.count }
    /// Publishers the shared socket is connected to: one per live peer channel.
    var sharedConnectionCount: Int { shared.connectionCount }

    private func newRoute() -> RouteID {
        nextRoute += 1
        return RouteID(rawValue: nextRoute)
    }

    /// The data plane and membership path as the node's channels see them.
    var transport: NodeTransport {
        NodeTransport(
            publish: { [self] topic, value in if alive { publisher.publish(topic: topic, value: value) } },
            publishRetained: { [self] topic, value in if alive { publisher.publishRetained(topic: topic, value: value) } },
            forgetRetained: { [self] topic in if alive { publisher.forgetRetained(topic: topic) } },
            addRoute: { [self] pattern, snapshot, deliver in
                let id = newRoute()
                guard alive else { return id }
                sharedRoutes.insert(id)
                shared.add(id, SimSocket.Route(pattern: pattern, deliver: deliver), snapshot: snapshot)
                return id
            },
            removeRoute: { [self] id in
                guard alive, sharedRoutes.remove(id) != nil else { return }
                shared.remove(id)
            },
            connect: { [self] endpoint in if alive { shared.connect(endpoint) } },
            disconnect: { [self] endpoint in if alive { shared.disconnect(endpoint) } },
            openDedicated: { [self] endpoint, pattern, deliver in
                let id = newRoute()
                guard alive else { return id }
                let socket = SimSocket(stack: self, network: network)
                socket.add(id, SimSocket.Route(pattern: pattern, deliver: deliver), snapshot: true)
                socket.connect(endpoint)
                dedicated[id] = socket
                return id
            },
            closeDedicated: { [self] id in
                guard alive else { return }
                dedicated.removeValue(forKey: id)?.close()
            },
            membershipSend: { [self] _, endpoint, bytes in
                if alive { network.sendMembership(from: node, endpoint: endpoint, bytes) }
            },
            membershipReceive: { [self] deliver in if alive { membershipDeliver = deliver } },
            membershipStop: { [self] in membershipDeliver = nil },
            membershipForget: { [self] id in if alive { network.forgetMembership(from: node, id: id) } },
            membershipArm: { [self] delay, fire in
                guard alive else { return }
                let loop = network.loop
                if let membershipTimer { loop.cancelTimer(membershipTimer) }
                membershipTimer = loop.schedule(domain: node, at: loop.localNow(node) + delay) { [weak self] in
                    self?.membershipTimer = nil
                    self?.onExecutor(fire)
                }
            }
        )
    }
}
