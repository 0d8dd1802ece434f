import RexCluster
import RexMembership

/// The simulated network between the nodes: pipes with latency, loss, cuts and high-water marks
/// (see ``SimPipe``), the publisher connections of every subscriber socket (which survive their
/// publisher's restarts, as a ZeroMQ connect does), and the membership's point-to-point links.
///
/// Lives on the loop's thread; every random draw comes from its one seeded generator.
final class SimNetwork {
    /// Totals over the run.
    struct Counters {
        var sent = 0
        var delivered = 0
        /// Sent again after a loss (TCP's retransmission: delayed, not dropped); dropped at a full
        /// pipe, when a pipe closed with frames waiting, and membership bytes for a node that was
        /// down.
        var retransmitted = 0
        var droppedAtHighWaterMark = 0
        var droppedOnClose = 0
        var toDownNode = 0
    }

    let loop: SimLoop
    let history: History
    var faults: LinkFaults
    private(set) var counters = Counters()
    private var random: MembershipRandom
    /// The running process of each node (nil: down).
    private(set) var stacks: [SimTransport?]
    /// Every subscriber connection to each node's publisher, attached or waiting, oldest first.
    private var connectionsTo: [[SimConnection]]
    private var membershipPipes: [Int: SimPipe] = [:]
    private var stalled: [SimPipe] = []
    let highWaterMark: Int
    /// TCP's first retransmission timeout (Linux's minimum).
    static let retransmissionTimeout = Duration.milliseconds(200)

    init(loop: SimLoop, nodes: Int, seed: UInt64, highWaterMark: Int, history: History) {
        self.loop = loop
        self.history = history
        self.highWaterMark = highWaterMark
        faults = LinkFaults(nodes: nodes)
        random = MembershipRandom(seed: seed)
        stacks = Array(repeating: nil, count: nodes)
        connectionsTo = Array(repeating: [], count: nodes)
    }

    // MARK: - Addresses

    static func id(_ node: Int) -> String { "n\(node + 1)" }
    static func pubEndpoint(_ node: Int) -> String { "sim://n\(node + 1)/pub" }
    static func membershipEndpoint(_ node: Int) -> String { "sim://n\(node + 1)/swim" }

    /// The node an endpoint of ours names (nil: not one of ours).
    func node(ofEndpoint endpoint: String) -> Int? {
        guard endpoint.hasPrefix("sim://n"), let slash = endpoint.lastIndex(of: "/") else { return nil }
        let digits = endpoint[endpoint.index(endpoint.startIndex, offsetBy: 7)..<slash]
        guard let number = Int(digits), number >= 1, number <= stacks.count else { return nil }
        return number - 1
    }

    // MARK: - Processes

    /// A node's new process is up: its publisher takes every connection waiting for it.
    func register(_ stack: SimTransport) {
        stacks[stack.node] = stack
        for connection in connectionsTo[stack.node] { connection.attach(to: stack.publisher) }
    }

    /// A node's process is gone (killed): its sockets and pipes with it.
    func unregister(_ stack: SimTransport) {
        guard stacks[stack.node] === stack else { return }
        stacks[stack.node] = nil
        for connection in connectionsTo[stack.node] { counters.droppedOnClose += connection.detach() }
        for to in stacks.indices {
            guard let pipe = membershipPipes.removeValue(forKey: stack.node * stacks.count + to) else { continue }
            counters.droppedOnClose += pipe.close()
        }
    }

    func add(_ connection: SimConnection) {
        connectionsTo[connection.publisherNode].append(connection)
        if let stack = stacks[connection.publisherNode] { connection.attach(to: stack.publisher) }
    }

    func remove(_ connection: SimConnection) {
        counters.droppedOnClose += connection.detach()
        connectionsTo[connection.publisherNode].removeAll { $0 === connection }
    }

    // MARK: - Pipes

    /// Sends `frame` on `pipe`; false when it was dropped (a closed or full pipe).
    @discardableResult
    func send(_ frame: Frame, on pipe: SimPipe) -> Bool {
        guard !pipe.closed else { return false }
        counters.sent += 1
        if pipe.isFull {
            counters.droppedAtHighWaterMark += 1
            return false
        }
        let jitterNanos = faults.jitter.components.attoseconds / 1_000_000_000 + faults.jitter.components.seconds * 1_000_000_000
        var extra = jitterNanos > 0 ? Duration.nanoseconds(Int64(random.next() % UInt64(jitterNanos))) : .zero
        // Every pipe is a TCP stream: a lost segment is sent again after a retransmission
        // timeout (doubling), and what follows waits behind it. Loss delays; it never drops.
        let loss = faults.loss(pipe.from, pipe.to)
        var timeout = Self.retransmissionTimeout
        while loss > 0, random.chance(loss), timeout < .seconds(30) {
            counters.retransmitted += 1
            extra += timeout
            timeout *= 2
        }
        let ready = max(loop.now + faults.baseLatency + faults.delay(pipe.from, pipe.to) + extra, pipe.lastReady)
        pipe.append(frame, ready: ready)
        if !pipe.pumping {
            pipe.pumping = true
            loop.at(ready) { [unowned self] in pump(pipe) }
        }
        return true
    }

    private func pump(_ pipe: SimPipe) {
        guard !pipe.closed, let first = pipe.first else {
            pipe.pumping = false
            return
        }
        if first.ready > loop.now {
            loop.at(first.ready) { [unowned self] in pump(pipe) }
            return
        }
        if faults.isCut(pipe.from, pipe.to) || loop.isPaused(pipe.to) {
            stalled.append(pipe)
            return
        }
        let frame = pipe.popFirst()
        counters.delivered += 1
        history.delivered(from: pipe.from, to: pipe.to, frame, at: loop.now)
        pipe.receive(frame)
        if let next = pipe.first {
            loop.at(max(next.ready, loop.now)) { [unowned self] in pump(pipe) }
        } else {
            pipe.pumping = false
        }
    }

    /// Lets stalled pipes try again (after a heal or a resume).
    func unstall() {
        let pipes = stalled
        stalled.removeAll()
        for pipe in pipes { loop.at(loop.now) { [unowned self] in pump(pipe) } }
    }

    func countClosed(_ frames: Int) { counters.droppedOnClose += frames }

    // MARK: - Membership

    /// Membership bytes from node `from` to whoever owns `endpoint`, over their link (created on
    /// first use, dropped by `forgetMembership` or the sender's death).
    func sendMembership(from: Int, endpoint: String, _ bytes: [UInt8]) {
        guard let to = node(ofEndpoint: endpoint), to != from else { return }
        let key = from * stacks.count + to
        let pipe: SimPipe
        if let existing = membershipPipes[key] {
            pipe = existing
        } else {
            pipe = SimPipe(from: from, to: to, highWaterMark: highWaterMark)
            pipe.receive = { [unowned self] frame in
                guard case .membership(let bytes) = frame else { return }
                guard let stack = stacks[to] else {
                    counters.toDownNode += 1
                    return
                }
                stack.receiveMembership(bytes)
            }
            membershipPipes[key] = pipe
        }
        send(.membership(bytes), on: pipe)
    }

    /// Drops node `from`'s membership link to member `id` (declared dead or left).
    func forgetMembership(from: Int, id: String) {
        guard id.hasPrefix("n"), let number = Int(id.dropFirst()), (1...stacks.count).contains(number) else { return }
        let to = number - 1
        let key = from * stacks.count + to
        guard let pipe = membershipPipes.removeValue(forKey: key) else { return }
        counters.droppedOnClose += pipe.close()
    }
}
