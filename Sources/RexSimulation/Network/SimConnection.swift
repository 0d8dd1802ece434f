import RexCluster

/// One subscriber socket's connection to one node's publisher endpoint. Like a ZeroMQ connect it
/// outlives the publisher's process: while that node is down it waits, and each time a process
/// comes up it attaches a new session — two pipes (data down, subscription frames up) — and
/// sends every subscription of its socket again, snapshot requests included.
final class SimConnection {
    unowned let socket: SimSocket
    let publisherNode: Int
    private unowned let network: SimNetwork
    /// The session's pipes and the publisher's view of its subscriptions (nil: not attached).
    private(set) var down: SimPipe?
    private var up: SimPipe?
    private weak var publisher: SimPublisher?
    private var remote: [TopicPattern: Int] = [:]

    init(socket: SimSocket, publisherNode: Int, network: SimNetwork) {
        self.socket = socket
        self.publisherNode = publisherNode
        self.network = network
    }

    /// Starts a session with `publisher`'s process.
    func attach(to publisher: SimPublisher) {
        _ = detach()
        let down = SimPipe(from: publisherNode, to: socket.node, highWaterMark: network.highWaterMark)
        let up = SimPipe(from: socket.node, to: publisherNode, highWaterMark: Int.max)
        down.receive = { [unowned self] frame in socket.receive(frame) }
        up.receive = { [unowned self, weak publisher] frame in
            guard let publisher else { return }
            receiveAtPublisher(frame, publisher)
        }
        self.down = down
        self.up = up
        self.publisher = publisher
        remote = [:]
        publisher.connections.append(self)
        for pattern in socket.patterns { sendUp(.subscribe(pattern)) }
        for (route, pattern) in socket.snapshotRequests { sendUp(.snapshotRequest(route, pattern, requester: socket.epoch)) }
    }

    /// Ends the session (either side's process died, or the socket disconnected); returns the
    /// frames dropped with its pipes.
    func detach() -> Int {
        publisher?.connections.removeAll { $0 === self }
        publisher = nil
        remote = [:]
        let dropped = (down?.close() ?? 0) + (up?.close() ?? 0)
        down = nil
        up = nil
        return dropped
    }

    func sendUp(_ frame: Frame) {
        guard let up else { return }
        network.send(frame, on: up)
    }

    /// Whether the publisher sends `topic` on this connection (its view of the subscriptions).
    func wants(_ topic: String) -> Bool {
        remote.keys.contains { $0.matches(topic) }
    }

    /// Sends a data frame down, if the session is up.
    func sendDown(_ frame: Frame) {
        guard let down else { return }
        network.send(frame, on: down)
    }

    private func receiveAtPublisher(_ frame: Frame, _ publisher: SimPublisher) {
        switch frame {
        case .subscribe(let pattern):
            remote[pattern, default: 0] += 1
        case .unsubscribe(let pattern):
            guard let count = remote[pattern] else { return }
            remote[pattern] = count > 1 ? count - 1 : nil
        case .snapshotRequest(let route, let pattern, _):
            for message in publisher.snapshot(of: pattern) { sendDown(.data(message, snapshotRoute: route)) }
        case .data, .membership:
            break
        }
    }
}
