import RexCluster
import RexControl
import ZMQ

/// The sockets a node binds as it starts, on its reactor thread: the ZAP handler first (a CURVE
/// socket's handshakes need it from the start), then the data plane, the control endpoint, the
/// metrics endpoint and the membership. When one cannot be bound, those bound before it are
/// closed, newest first, and the error is thrown.
struct NodeSockets {
    let gatekeeper: NodeGatekeeper?
    let io: NodeIO
    let control: ZMQSocket
    let metrics: ZMQSocket?
    let membership: MembershipSocket

    static func bind(
        _ configuration: NodeConfiguration, policy: ZapPolicy?, context: ZMQContext, reactor: Reactor, log: NodeLogger
    ) throws -> NodeSockets {
        let limits = configuration.settings.limits
        var opened: [() -> Void] = []
        do {
            let gatekeeper = try policy.map { policy throws(ZMQError) in
                try NodeGatekeeper(policy: policy, context: context, reactor: reactor, log: log)
            }
            if let gatekeeper { opened.append(gatekeeper.close) }
            let io = try NodeIO(
                nodeID: configuration.id, epoch: NodeEpoch.new(), limits: limits, context: context,
                reactor: reactor, pubEndpoint: configuration.pubEndpoint, log: log,
                security: policy.map(DataPlaneSecurity.init)
            )
            opened.append(io.close)
            let control = try context.socket(.router)
            opened.append(control.close)
            if let policy { try policy.makeServer(control, domain: ZapPolicy.controlDomain) }
            // A request past the hard cap costs its sender the connection, before libzmq
            // allocates it; up to it the client gets an error reply (see ControlService).
            try control.setOption(.maxMessageSize, limits.maxControlFrameBytes)
            control.receiveFrameLimit = ControlFrames.maxFrames
            try control.bind(configuration.controlEndpoint)
            var metrics: ZMQSocket?
            if let endpoint = configuration.metricsEndpoint {
                let socket = try context.socket(.stream)
                opened.append(socket.close)
                // Raw TCP: a message is [routing id, bytes]; nothing longer is valid.
                socket.receiveFrameLimit = 2
                try socket.bind(endpoint)
                metrics = socket
            }
            let membership = try MembershipSocket(
                context: context, reactor: reactor, endpoint: configuration.membershipEndpoint, log: log,
                security: policy.map(MembershipSecurity.init))
            io.membership = membership
            return NodeSockets(gatekeeper: gatekeeper, io: io, control: control, metrics: metrics, membership: membership)
        } catch {
            for close in opened.reversed() { close() }
            throw error
        }
    }

    /// The control endpoint as bound (the real port of a `:*`).
    func controlEndpoint(asked: String) -> String {
        ((try? control.lastEndpoint) ?? nil) ?? asked
    }

    /// The metrics endpoint as bound, when the node serves one.
    func metricsEndpoint(asked: String?) -> String? {
        guard let metrics else { return nil }
        return ((try? metrics.lastEndpoint) ?? nil) ?? asked
    }
}
