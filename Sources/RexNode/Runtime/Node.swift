import Foundation
public import RexCluster
import RexControl
public import SwiftRex
import Synchronization
import ZMQ

/// One running node of a feature: its store on its own reactor thread, its sockets, its SWIM
/// membership, its control endpoint and, with a data directory, its journal.
///
/// ```swift
/// let node = try Node<NodeFeature>.start(NodeConfiguration(id: "n1", pubEndpoint: "tcp://127.0.0.1:*",
///                                                         controlEndpoint: "tcp://127.0.0.1:*"))
/// node.dispatch(.set(topic: "eu.prices", value: "42"))
/// await node.stop()
/// ```
public final class Node<Feature: ClusterFeature>: Sendable {
    /// The node's id.
    public let id: String
    /// The resolved publisher endpoint (with the real port when bound to `:*`).
    public let pubEndpoint: String
    /// The resolved control endpoint.
    public let controlEndpoint: String
    /// The resolved HTTP metrics endpoint, when the node serves one.
    public let metricsEndpoint: String?
    /// The resolved SWIM membership endpoint (what a peer's `--peer` or `--join` names).
    public let membershipEndpoint: String
    /// The feature's store, on the reactor.
    public let store: Store<Feature.Action, Feature.State, Feature.Environment>
    /// The thread that owns the node's sockets and runs its store.
    public let reactor: Reactor
    private let context: ZMQContext
    private let io: ReactorBound<NodeIO>
    private let control: ReactorBound<ControlService<Feature>>
    private let metrics: ReactorBound<MetricsEndpoint>?
    /// The ZAP handler of a secured node (nil: the node runs plain).
    private let gatekeeper: ReactorBound<NodeGatekeeper>?
    private let durable: DurableRuntime<Feature>?
    private let log: NodeLogger
    private let stopped = Mutex(false)
    private let trimmer = MemoryTrimmer()

    init(
        id: String, pubEndpoint: String, controlEndpoint: String, store: Store<Feature.Action, Feature.State, Feature.Environment>,
        reactor: Reactor, context: ZMQContext, io: ReactorBound<NodeIO>, control: ReactorBound<ControlService<Feature>>,
        metricsEndpoint: String?, metrics: ReactorBound<MetricsEndpoint>?, log: NodeLogger, membershipEndpoint: String,
        gatekeeper: ReactorBound<NodeGatekeeper>? = nil, durable: DurableRuntime<Feature>? = nil
    ) {
        self.membershipEndpoint = membershipEndpoint
        self.gatekeeper = gatekeeper
        self.durable = durable
        self.id = id
        self.metricsEndpoint = metricsEndpoint
        self.metrics = metrics
        self.pubEndpoint = pubEndpoint
        self.controlEndpoint = controlEndpoint
        self.store = store
        self.reactor = reactor
        self.context = context
        self.io = io
        self.control = control
        self.log = log
    }

    /// Queues an action on the node's store (from any thread). Not journaled: with a data
    /// directory, only the operator actions accepted on the control endpoint are durable.
    public func dispatch(_ action: Feature.Action) {
        store.dispatch(action)
    }

    /// Topics (and prefixes) that peers are subscribed to at this node's publisher. An exact
    /// topic shows as `topic`, a prefix as `prefix*`.
    public func publisherSubscriptions() -> Set<String> {
        let io = self.io
        return
            (try? reactor.sync {
                Set(
                    io.value.publisher.remoteSubscriptions.keys.map(\.bytes).map { bytes in
                        bytes.last == 0 ? String(decoding: bytes.dropLast(), as: UTF8.self) : String(decoding: bytes, as: UTF8.self) + "*"
                    })
            }) ?? []
    }

    /// Whether peers hold a subscription to each of these exact topics at this node's publisher:
    /// `publisherSubscriptions().isSuperset(of: topics)` without building every subscription as a
    /// string on the reactor (a benchmark polls this while the reactor works).
    public func publisherIsSubscribed(toAll topics: [String]) -> Bool {
        let keys = topics.map(SubscriptionBytes.init(exactTopic:))
        let io = self.io
        return (try? reactor.sync { keys.allSatisfy { io.value.publisher.remoteSubscriptions[$0] != nil } }) ?? false
    }

    /// Sockets this node has open, and distinct subscriptions on its shared subscriber.
    public func socketCounts() -> (open: Int, sharedSubscriptions: Int) {
        let io = self.io
        return (try? reactor.sync { (io.value.flushAndCount().socketsOpen, io.value.subscriber.sharedSubscriptionCount) }) ?? (0, 0)
    }

    /// Messages published and received so far.
    public func messageCounts() -> (published: Int, received: Int) {
        let io = self.io
        return
            (try? reactor.sync {
                let counters = io.value.flushAndCount()
                return (counters.published, counters.received)
            }) ?? (0, 0)
    }

    /// Everything the node's sockets counted so far.
    func ioCounters() -> NodeIO.Counters {
        let io = self.io
        return (try? reactor.sync { io.value.flushAndCount() }) ?? NodeIO.Counters()
    }

    /// The most published messages ever waiting in the outbox at once (it must stay within
    /// `NodePublisher.outboxLimit`).
    func outboxPeak() -> Int {
        let io = self.io
        return (try? reactor.sync { io.value.flushAndCount().outboxPeak }) ?? 0
    }

    /// The node's state as of its last processed batch.
    public var state: Feature.State { store.state }

    /// Stops accepting control requests, releases the store (every channel's cancel runs once),
    /// closes every socket with linger 0, terminates the context and stops the reactor.
    public func stop() async {
        guard
            stopped.withLock({ already in
                defer { already = true }; return !already
            })
        else { return }
        log.info("stopping")
        let control = self.control
        let durable = self.durable
        try? reactor.sync {
            control.value.acceptingDispatch = false
            durable?.stopAccepting()
        }
        // The last commit, then its replies and actions (reactor jobs) before the store goes.
        durable?.close()
        try? reactor.sync {}
        await store.release()
        let io = self.io
        let metrics = self.metrics
        let gatekeeper = self.gatekeeper
        try? reactor.sync {
            metrics?.value.close()
            control.value.close()
            io.value.close()
            gatekeeper?.value.close()
        }
        do {
            try context.terminate(timeout: .seconds(1))
        } catch {
            log.error("context_terminate_failed", ["error": "\(error)"])
        }
        reactor.stop()
        trimmer.stop()
        log.info("stopped")
    }
}
