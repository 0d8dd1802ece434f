import RexControl
import RexFeeds
import ZMQ

/// A watch on one node (docs/protocol.md, "watch"): the node pushes the watched documents
/// whenever they change; this keeps the latest of each, renews the lease, and starts over when
/// the node stops answering, refuses, or a push went missing.
///
/// Nothing here blocks: ``pump(now:)`` sends what is due and reads what arrived, and
/// ``waitForAny(_:until:)`` polls the sockets of several watches until one of them changes.
///
/// ```swift
/// let watch = NodeWatch(client: client, documents: [.keep], requestTimeout: .seconds(2))
/// defer { watch.stop() }
/// while true {
///     try NodeWatch.waitForAny([watch], until: deadline)
///     if let keep = watch.keep { print(keep.channels.count) }
/// }
/// ```
///
/// Like its client, a watch belongs to one thread.
final class NodeWatch {
    let client: NodeClient
    let documents: [WatchedDocument]
    /// How long the node may take to answer the watch request or a renewal.
    let requestTimeout: Duration
    /// The lease asked for; renewed after a third of it.
    let leaseMs: Int
    /// The latest documents pushed (nil until the first push).
    private(set) var keep: KeepDocument?
    /// The state as the node's feature encodes it, and read as the feeds feature's (nil for a
    /// node running another feature).
    private(set) var stateTree: JSONValue?
    private(set) var state: NodeState?
    /// Why the documents may be stale: the node did not answer, refused or sent garbage. Cleared
    /// by the next push.
    private(set) var failure: NodeRequestError?

    private enum Phase {
        /// Nothing sent yet, or waiting to try again.
        case idle(retryAt: ContinuousClock.Instant)
        /// The watch request is out, unanswered.
        case requested(id: JSONValue, sentAt: ContinuousClock.Instant, timeout: Duration)
        /// Pushes arrive; `renewal` is an unanswered renew.
        case watching(
            id: JSONValue, sequence: Int, renewAt: ContinuousClock.Instant,
            renewal: (id: JSONValue, sentAt: ContinuousClock.Instant)?)
    }

    private var phase: Phase

    init(client: NodeClient, documents: [WatchedDocument], requestTimeout: Duration, leaseMs: Int = WatchPolicy.defaultLeaseMs) {
        self.client = client
        self.documents = documents
        self.requestTimeout = requestTimeout
        self.leaseMs = leaseMs
        phase = .idle(retryAt: .now)
    }

    /// When ``pump(now:)`` must run again at the latest.
    var nextDeadline: ContinuousClock.Instant {
        switch phase {
        case .idle(let retryAt): retryAt
        case .requested(_, let sentAt, let timeout): sentAt.advanced(by: timeout)
        case .watching(_, _, let renewAt, let renewal): renewal.map { $0.sentAt.advanced(by: requestTimeout) } ?? renewAt
        }
    }

    /// Sends what is due and handles every reply that arrived.
    ///
    /// - Returns: whether the documents or the failure changed.
    @discardableResult
    func pump(now: ContinuousClock.Instant = .now) -> Bool {
        var changed = false
        do {
            while let reply = try client.receive() { changed = handle(reply, now: now) || changed }
        } catch {
            changed = fail(NodeRequestError(node: client.node, kind: .transport(error.description)), retryAt: now.advanced(by: .seconds(1)))
        }
        switch phase {
        case .idle(let retryAt) where now >= retryAt:
            request(now: now)
        case .requested(_, let sentAt, let timeout) where now >= sentAt.advanced(by: timeout):
            changed = fail(client.silence(after: timeout), retryAt: now) || changed
            request(now: now)
        case .watching(let id, let sequence, let renewAt, let renewal):
            if let renewal, now >= renewal.sentAt.advanced(by: requestTimeout) {
                changed = fail(client.silence(after: requestTimeout), retryAt: now) || changed
                request(now: now)
            } else if renewal == nil, now >= renewAt,
                let renewID = try? client.send(ControlRequest<JSONValue>(.renew, watch: id), timeout: requestTimeout)
            {
                phase = .watching(id: id, sequence: sequence, renewAt: renewAt, renewal: (renewID, now))
            }
        default:
            break
        }
        return changed
    }

    /// The command's time is up: a watch request still unanswered counts as unreachable now.
    func giveUp() {
        if case .requested(_, _, let timeout) = phase {
            _ = fail(client.silence(after: timeout), retryAt: .now.advanced(by: .seconds(3600)))
        }
    }

    /// Ends the watch at the node (best effort: waits briefly for the answer, so the node frees
    /// the watcher now rather than at the end of its lease).
    func stop() {
        guard case .watching(let id, _, _, _) = phase,
            let unwatchID = try? client.send(ControlRequest<JSONValue>(.unwatch, watch: id), timeout: .milliseconds(200))
        else { return }
        phase = .idle(retryAt: .now.advanced(by: .seconds(3600)))
        _ = try? client.awaitReply(id: unwatchID, until: .now.advanced(by: .milliseconds(200)))
    }

    /// Polls the sockets of `watches` until one of them changes or `deadline` passes.
    static func waitForAny(_ watches: [NodeWatch], until deadline: ContinuousClock.Instant?) throws {
        let poller = ZMQPoller(capacity: max(1, watches.count))
        for watch in watches {
            do {
                try poller.register(watch.client.socket)
            } catch {
                throw NodeRequestError(node: watch.client.node, kind: .transport(error.description))
            }
        }
        while true {
            var changed = false
            let now = ContinuousClock.now
            for watch in watches { changed = watch.pump(now: now) || changed }
            if changed { return }
            if let deadline, now >= deadline { return }
            var wake = watches.map(\.nextDeadline).min() ?? now.advanced(by: .seconds(1))
            if let deadline { wake = min(wake, deadline) }
            _ = try? poller.poll(timeout: max(.zero, now.duration(to: wake)))
        }
    }

    // MARK: phases

    private func request(now: ContinuousClock.Instant) {
        let timeout = requestTimeout
        do {
            let id = try client.send(ControlRequest<JSONValue>(.watch, documents: documents, leaseMs: leaseMs), timeout: timeout)
            phase = .requested(id: id, sentAt: now, timeout: timeout)
        } catch {
            _ = fail(error, retryAt: now.advanced(by: timeout))
        }
    }

    /// Records `failure`; the watch starts over at `retryAt`. Returns whether it is news.
    private func fail(_ error: NodeRequestError, retryAt: ContinuousClock.Instant) -> Bool {
        phase = .idle(retryAt: retryAt)
        defer { failure = error }
        return failure != error
    }

    private func handle(_ reply: ReceivedReply, now: ContinuousClock.Instant) -> Bool {
        switch phase {
        case .requested(let id, _, _) where reply.id == id,
            .watching(let id, _, _, _) where reply.id == id:
            return handlePush(reply, id: id, now: now)
        case .watching(let id, let sequence, _, let renewal?) where reply.id == renewal.id:
            switch reply.result(RenewDocument.self) {
            case .success(let renew) where renew.renewed > 0:
                phase = .watching(id: id, sequence: sequence, renewAt: now.advanced(by: .milliseconds(leaseMs / 3)), renewal: nil)
                return false
            case .success:
                // The node no longer has this watch (expired, or dropped when this client
                // fell behind): start over.
                request(now: now)
                return false
            case .failure(let failure):
                return fail(NodeRequestError(node: client.node, failure), retryAt: now.advanced(by: .seconds(1)))
            }
        default:
            return false  // a late answer to an earlier attempt
        }
    }

    private func handlePush(_ reply: ReceivedReply, id: JSONValue, now: ContinuousClock.Instant) -> Bool {
        let push: WatchDocument<JSONValue>
        switch reply.result(WatchDocument<JSONValue>.self) {
        case .success(let document): push = document
        case .failure(let failure):
            return fail(NodeRequestError(node: client.node, failure), retryAt: now.advanced(by: .seconds(1)))
        }
        switch phase {
        case .requested:
            guard push.sequence == 1 else { return false }
            phase = .watching(id: id, sequence: 1, renewAt: now.advanced(by: .milliseconds(push.leaseMs / 3)), renewal: nil)
        case .watching(_, let sequence, let renewAt, let renewal):
            guard push.sequence == sequence + 1 else {
                // A push went missing: what it changed is unknown, so start over.
                request(now: now)
                return false
            }
            phase = .watching(id: id, sequence: push.sequence, renewAt: renewAt, renewal: renewal)
        case .idle:
            return false
        }
        if let keep = push.keep { self.keep = keep }
        if let tree = push.state {
            stateTree = tree
            state = tree.decoded(as: NodeState.self)
        }
        failure = nil
        return true
    }
}
