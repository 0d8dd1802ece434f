import Foundation
public import RexActors
import Synchronization
import ZMQ

/// Carries an actor system's frames over ZeroMQ: one thread owns a ROUTER bound for frames in and
/// one DEALER per peer for frames out (its routing id is this member's id, so the peer's ROUTER
/// names the sender).
///
/// Without CURVE the routing id is what the peer claims; the node runtime binds it to the member's
/// ZAP-authenticated key instead. Membership is not this type's business: report verdicts to the
/// system with ``ClusterActorSystem/memberChanged(_:to:)``.
///
/// ```swift
/// let zmq = try ZMQActorTransport(node: "n1", bind: "tcp://127.0.0.1:*", peers: ["n2": "tcp://127.0.0.1:7302"])
/// let system = ClusterActorSystem(node: "n1", transport: zmq.transport)
/// zmq.attach(system)
/// ```
public final class ZMQActorTransport: Sendable {
    private struct Outbox {
        var frames: [(member: String, frame: [UInt8])] = []
        var peers: [String: String] = [:]
        var sleeping = false
        var stopped = false
        var receiver: ClusterActorSystem?
        var dropped = 0
    }

    /// This member's id (the DEALERs' routing id).
    public let node: String
    /// The ROUTER's endpoint with any `*` port resolved.
    public let endpoint: String
    private let context: ZMQContext
    private let shared = Shared()
    private let capacity: Int
    private let finished = DispatchSemaphore(value: 0)

    /// Binds the ROUTER at `bind` and starts the thread; `peers` maps member ids to their endpoints.
    ///
    /// - Parameters:
    ///   - capacity: frames queued for sending at most; past it ``transport``'s send returns false.
    ///   - maxFrameBytes: the largest frame a peer may send (libzmq drops a peer that sends more).
    public init(
        node: String, bind: String, peers: [String: String] = [:], capacity: Int = 65_536, maxFrameBytes: Int = 4 << 20
    ) throws {
        self.node = node
        self.capacity = capacity
        let context = try ZMQContext()
        self.context = context
        shared.outbox.withLock { $0.peers = peers }
        let started = DispatchSemaphore(value: 0)
        let bound = Mutex<Result<String, any Error>?>(nil)
        let thread = Thread { [shared, finished, node] in
            Self.run(
                context: context, node: node, bind: bind, maxFrameBytes: maxFrameBytes, capacity: capacity, shared: shared,
                report: { result in
                    bound.withLock { $0 = result }
                    started.signal()
                })
            finished.signal()
        }
        thread.name = "actors-zmq-\(node)"
        thread.start()
        started.wait()
        switch bound.withLock({ $0 })! {
        case .success(let endpoint): self.endpoint = endpoint
        case .failure(let error):
            finished.wait()
            shared.wake.close()
            throw error
        }
    }

    /// The seam to hand to ``ClusterActorSystem``.
    public var transport: ActorTransport {
        ActorTransport { [self] frame, member in enqueue(frame, to: member) }
    }

    /// Delivers received frames to `system` (frames before this are dropped).
    public func attach(_ system: ClusterActorSystem) {
        shared.outbox.withLock { $0.receiver = system }
    }

    /// Adds or changes a peer's endpoint (a DEALER connects on the first frame to it).
    public func addPeer(_ member: String, endpoint: String) {
        shared.outbox.withLock { $0.peers[member] = endpoint }
    }

    /// Frames dropped: no route to their member, or the DEALER at its high-water mark.
    public var droppedFrames: Int { shared.outbox.withLock { $0.dropped } }

    /// Stops the thread (queued frames are discarded), closes the sockets and the context.
    public func stop() {
        let first = shared.outbox.withLock { outbox in
            defer { outbox.stopped = true }
            return !outbox.stopped
        }
        guard first else { return }
        shared.wake.signal()
        finished.wait()
        shared.wake.close()
        try? context.terminate(timeout: .seconds(2))
    }

    deinit { stop() }

    /// The state the caller threads and the transport's thread share.
    private final class Shared: Sendable {
        let outbox = Mutex(Outbox())
        let wake = WakePipe()
    }

    private func enqueue(_ frame: [UInt8], to member: String) -> Bool {
        let signal = shared.outbox.withLock { outbox -> Bool? in
            guard !outbox.stopped, outbox.frames.count < capacity else { return nil }
            outbox.frames.append((member, frame))
            guard outbox.sleeping else { return false }
            outbox.sleeping = false
            return true
        }
        guard let signal else { return false }
        if signal { shared.wake.signal() }
        return true
    }

    /// The thread: sends what is queued, delivers what arrived, sleeps in `zmq_poll` when idle.
    ///
    /// A DEALER at its high-water mark keeps its member's frames in order here and is polled for
    /// writable; while `capacity` frames wait here the thread takes nothing more from the outbox,
    /// so the outbox fills and ``transport``'s send returns false: backpressure, bounded memory.
    private static func run(
        context: ZMQContext, node: String, bind: String, maxFrameBytes: Int, capacity: Int, shared: Shared,
        report: (Result<String, any Error>) -> Void
    ) {
        let router: ZMQSocket
        do {
            router = try context.socket(.router)
            try router.setOption(.maxMessageSize, maxFrameBytes)
            try router.setOption(.receiveHighWaterMark, 0)
            router.receiveFrameLimit = 2
            try router.bind(bind)
            report(.success(try router.lastEndpoint ?? bind))
        } catch {
            report(.failure(error))
            return
        }
        let poller = ZMQPoller(capacity: 8)
        guard (try? poller.register(router)) != nil else { return }
        poller.register(fileDescriptor: shared.wake.fileDescriptor)
        var links: [String: Link] = [:]
        defer {
            for link in links.values { link.dealer.close() }
            router.close()
        }
        let identity = Array(node.utf8)
        var waiting = 0  // frames held in links
        while true {
            var dropped = 0
            // Frames held for members whose DEALER was full, oldest first.
            for member in links.keys where !links[member]!.held.isEmpty {
                waiting -= links[member]!.flush()
                poller.update(links[member]!.token, for: links[member]!.held.isEmpty ? [] : .writable)
            }
            let (batch, peers, stopped, receiver) = shared.outbox.withLock {
                outbox -> ([(member: String, frame: [UInt8])], [String: String], Bool, ClusterActorSystem?) in
                guard waiting < capacity else { return ([], outbox.peers, outbox.stopped, outbox.receiver) }
                defer { outbox.frames.removeAll(keepingCapacity: true) }
                return (outbox.frames, outbox.peers, outbox.stopped, outbox.receiver)
            }
            if stopped { return }
            for (member, frame) in batch {
                if member == node {
                    receiver?.receive(frame, from: node)
                    continue
                }
                if links[member] == nil {
                    guard let dealer = makeDealer(context, identity, peers[member]), let token = try? poller.register(dealer, for: [])
                    else {
                        dropped += 1
                        continue
                    }
                    links[member] = Link(dealer: dealer, token: token)
                }
                switch links[member]!.send(frame) {
                case .sent: break
                case .held:
                    waiting += 1
                    poller.update(links[member]!.token, for: .writable)
                case .failed: dropped += 1
                }
            }
            var received = 0
            while received < 512,
                let message = try? router.tryReceive({ frames -> (String, [UInt8])? in
                    frames.count == 2 ? (frames.string(0), frames.bytes(1)) : nil
                })
            {
                received += 1
                if let (member, frame) = message { receiver?.receive(frame, from: member) }
            }
            let idle = shared.outbox.withLock { outbox -> Bool in
                outbox.dropped += dropped
                guard outbox.frames.isEmpty || waiting >= capacity, !outbox.stopped, received < 512 else { return false }
                outbox.sleeping = true
                return true
            }
            guard idle else { continue }
            _ = try? poller.poll(timeoutMilliseconds: 1000)
            shared.outbox.withLock { $0.sleeping = false }
            shared.wake.drain()
        }
    }

    /// One peer's DEALER and the frames it could not take yet.
    private struct Link {
        let dealer: ZMQSocket
        let token: ZMQPoller.Token
        var held: [[UInt8]] = []
        var head = 0

        enum Outcome { case sent, held, failed }

        /// Sends `frame` behind any held ones; holds it when the DEALER is full.
        mutating func send(_ frame: [UInt8]) -> Outcome {
            if head < held.count {
                held.append(frame)
                return .held
            }
            do {
                if try dealer.send(frame, flags: ZMQSendFlags.dontWait) { return .sent }
            } catch {
                return .failed
            }
            held.append(frame)
            return .held
        }

        /// Sends held frames until the DEALER is full again; returns how many left the hold.
        mutating func flush() -> Int {
            let start = head
            while head < held.count, (try? dealer.send(held[head], flags: ZMQSendFlags.dontWait)) == true { head += 1 }
            let sent = head - start
            if head == held.count {
                held.removeAll(keepingCapacity: true)
                head = 0
            }
            return sent
        }
    }

    private static func makeDealer(_ context: ZMQContext, _ identity: [UInt8], _ endpoint: String?) -> ZMQSocket? {
        guard let endpoint, let dealer = try? context.socket(.dealer) else { return nil }
        do {
            try dealer.setRoutingID(identity)
            try dealer.setOption(.sendHighWaterMark, 10_000)
            try dealer.connect(endpoint)
            return dealer
        } catch {
            dealer.close()
            return nil
        }
    }
}
