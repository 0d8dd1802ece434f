import RexControl
import Foundation
import SwiftRex
import ZMQ

/// The node's control endpoint: a ROUTER socket on the reactor thread answering JSON requests.
///
/// Every request gets exactly one reply, echoing the frames before the payload (the ROUTER
/// identity, and the empty delimiter of a REQ client). A malformed request gets an error reply
/// and changes nothing.
final class ControlService {
    private let socket: ZMQSocket
    private let reactor: Reactor
    private var reader: ReaderToken?
    private let node: NodeInfo
    private let store: Store<NodeAction, NodeState, NodeEnvironment>
    private let io: NodeIO
    private let log: NodeLogger
    private let limits: NodeLimits
    private var bound: ReactorBound<ControlService>?
    var acceptingDispatch = true

    struct NodeInfo: Sendable {
        let id: String
        let pub: String
        let control: String
        let startedAt: ContinuousClock.Instant

        var uptimeMs: Int { ControlJSON.wholeMilliseconds(ContinuousClock.now - startedAt) }
    }

    init(
        socket: ZMQSocket, reactor: Reactor, node: NodeInfo, store: Store<NodeAction, NodeState, NodeEnvironment>,
        io: NodeIO, log: NodeLogger
    ) {
        self.socket = socket
        self.reactor = reactor
        self.node = node
        self.store = store
        self.io = io
        self.log = log
        self.limits = store.state.settings.limits
    }

    func start() {
        bound = ReactorBound(self, on: reactor)
        reader = reactor.addReader(socket) { [unowned self] in drain() }
    }

    func close() {
        if let reader { reactor.removeReader(reader) }
        reader = nil
        bound = nil
        socket.close()
    }

    private func drain() {
        for _ in 0..<256 {
            let message: [[UInt8]]?
            do {
                message = try socket.tryReceiveMultipart()
            } catch {
                log.error("control_receive_failed", ["error": "\(error)"])
                return
            }
            guard let message else { return }
            handle(message)
        }
    }

    /// The most frames a request may have: the ROUTER's identity, a REQ's empty delimiter and
    /// the payload. A longer message is refused without keeping its frames.
    static let maxFrames = 4

    private func handle(_ frames: [[UInt8]]) {
        let envelope = Array(frames.dropLast())
        let payload = frames.last ?? []
        var requestID: Any = NSNull()
        do throws(ControlError) {
            guard frames.count <= Self.maxFrames else {
                // The frames past the limit were never kept: an envelope of this length cannot be
                // trusted to route a reply, so the request is dropped (and logged).
                log.warning("control_request_refused", ["code": "badRequest", "message": "more than \(Self.maxFrames) frames"])
                return
            }
            guard payload.count <= limits.maxRequestBytes else {
                throw ControlError(.tooLarge, "the request has \(payload.count) bytes; this node accepts at most \(limits.maxRequestBytes) (--max-request-bytes)")
            }
            guard let object = try? JSONSerialization.jsonObject(with: Data(payload)),
                  let request = object as? [String: Any] else {
                throw ControlError(.badRequest, "the request is not a JSON object")
            }
            if let id = request["id"] { requestID = id }
            guard let version = ControlJSON.integer(request["v"]) else {
                throw ControlError(.badRequest, "missing field 'v' (protocol version: the integer 1)")
            }
            guard version == 1 else { throw ControlError(.badVersion, "protocol version \(version) is not supported (this node speaks 1)") }
            guard let op = request["op"] as? String else { throw ControlError(.badRequest, "missing field 'op' (string)") }
            try perform(op, request, envelope: envelope, requestID: requestID)
        } catch {
            log.warning("control_request_refused", ["code": error.code.rawValue, "message": error.message])
            reply(envelope, ["v": 1, "id": requestID, "ok": false, "error": ["code": error.code.rawValue, "message": error.message]])
        }
    }

    private func perform(_ op: String, _ request: [String: Any], envelope: [[UInt8]], requestID: Any) throws(ControlError) {
        switch op {
        case "ping":
            succeed(envelope, requestID, [
                "node": node.id, "uptimeMs": node.uptimeMs, "pub": node.pub, "control": node.control,
                "pid": Int(ProcessInfo.processInfo.processIdentifier),
            ])
        case "dispatch":
            guard acceptingDispatch else { throw ControlError(.shuttingDown, "node \(node.id) is shutting down") }
            let action = try OperatorAction.parse(request["action"], limits: limits)
            try checkRoom(for: action)
            store.dispatch(action)
            log.debug("dispatched", ["action": "\(action)"])
            succeed(envelope, requestID, ["accepted": true, "action": OperatorAction.json(action)])
        case "state":
            // A copy of the state is one retain; encoding it (100k follows: hundreds of ms) runs
            // off the reactor.
            let state = store.state
            respondLater(envelope, requestID) { _ in ControlJSON.state(state) }
        case "keep":
            let nowMs = node.uptimeMs
            respondLater(envelope, requestID) { store in ControlJSON.keep(await store.keep(), nowMs: nowMs) }
        case "metrics":
            let io = self.io.flushAndCount()
            let state = store.state
            let (depth, maxDepth) = store.mailboxDepth
            let uptime = node.uptimeMs
            respondLater(envelope, requestID) { store in
                let counters = await store.keep().counters
                return [
                    "uptimeMs": uptime,
                    "reconcile": [
                        "cycles": counters.cycles, "changedCycles": counters.changedCycles,
                        "lastMs": ControlJSON.milliseconds(counters.lastDuration),
                        "maxMs": ControlJSON.milliseconds(counters.maxDuration),
                        "buildMs": ControlJSON.milliseconds(counters.totalBuildDuration),
                        "diffMs": ControlJSON.milliseconds(counters.totalDiffDuration),
                        "p50Ms": ControlJSON.milliseconds(counters.cycleDurations.percentile(0.5)),
                        "p99Ms": ControlJSON.milliseconds(counters.cycleDurations.percentile(0.99)),
                        "histogram": counters.cycleDurations.buckets.map { [Int($0.upperEdgeNanoseconds), $0.count] },
                    ],
                    "channels": ["opens": counters.opens, "cancels": counters.cancels, "recreates": counters.recreates, "live": counters.liveChannels],
                    "messages": [
                        "published": io.published, "received": io.received, "malformed": io.malformed,
                        "oversized": io.oversized, "hwmDrops": io.hwmDrops,
                        "gaps": state.follows.values.saturatingSum(\.gaps),
                        "duplicates": state.follows.values.saturatingSum(\.duplicates),
                        "reordered": state.follows.values.saturatingSum(\.reordered),
                        "restarts": state.follows.values.saturatingSum(\.restarts),
                        "evicted": state.follows.values.saturatingSum(\.evicted),
                    ],
                    "snapshots": ["served": io.snapshotsServed, "refused": io.snapshotsRefused],
                    "limits": ["refusedActions": state.refused, "subscriptionsUntracked": io.subscriptionsUntracked],
                    "mailbox": ["depth": depth, "maxDepth": maxDepth],
                    "sockets": ["open": io.socketsOpen, "created": io.socketsCreated],
                    "process": ["rssBytes": ProcessStats.residentBytes, "fds": ProcessStats.openFileDescriptors],
                ]
            }
        default:
            throw ControlError(.unknownOp, "unknown op '\(op)' (expected ping, dispatch, state, keep, metrics)")
        }
    }

    /// Refuses an action that would add a feed, follow or peer beyond the limits.
    private func checkRoom(for action: NodeAction) throws(ControlError) {
        let state = store.state
        switch action {
        case .set(let topic, _) where state.feeds[topic] == nil && state.feeds.count >= limits.maxFeeds:
            throw ControlError(.limitReached, "node \(node.id) holds \(limits.maxFeeds) feeds, its limit (--max-feeds)")
        case .follow(let name, _, _) where state.follows[name] == nil && state.follows.count >= limits.maxFollows:
            throw ControlError(.limitReached, "node \(node.id) holds \(limits.maxFollows) follows, its limit (--max-follows)")
        case .addPeer(let id, _) where state.peers[id] == nil && state.peers.count >= limits.maxPeers:
            throw ControlError(.limitReached, "node \(node.id) knows \(limits.maxPeers) peers, its limit (--max-peers)")
        default:
            return
        }
    }

    private func succeed(_ envelope: [[UInt8]], _ requestID: Any, _ result: Any) {
        reply(envelope, ["v": 1, "id": requestID, "ok": true, "result": result])
    }

    /// Builds the result off the reactor (it awaits the store), then replies on the reactor.
    private func respondLater(
        _ envelope: [[UInt8]], _ requestID: Any,
        _ build: @escaping @Sendable (Store<NodeAction, NodeState, NodeEnvironment>) async -> Any
    ) {
        guard let bound else { return }
        let store = self.store
        let id = ControlJSON.data(["id": requestID])
        let maxReply = limits.maxReplyBytes
        Task {
            let result = ControlJSON.data(["result": await build(store)])
            bound.reactor.execute {
                guard result.count <= maxReply else {
                    let message = "the reply would have \(result.count) bytes; this node sends at most \(maxReply) (--max-reply-bytes)"
                    bound.value.replyErrorRaw(envelope, id: id, ControlError(.tooLarge, message))
                    return
                }
                bound.value.replyRaw(envelope, id: id, result: result)
            }
        }
    }

    /// Splices pre-serialized `{"id":…}` and `{"result":…}` documents into one reply.
    private func replyRaw(_ envelope: [[UInt8]], id: [UInt8], result: [UInt8]) {
        // {"id":X} + {"result":Y} → {"id":X,"ok":true,"result":Y,"v":1}
        let document = Array(id.dropLast()) + Array(",\"ok\":true,".utf8) + Array(result.dropFirst().dropLast()) + Array(",\"v\":1}".utf8)
        send(envelope, document)
    }

    /// An error reply with a pre-serialized `{"id":…}`, as `replyRaw`.
    private func replyErrorRaw(_ envelope: [[UInt8]], id: [UInt8], _ error: ControlError) {
        log.warning("control_request_refused", ["code": error.code.rawValue, "message": error.message])
        let body = ControlJSON.data(["code": error.code.rawValue, "message": error.message])
        let document = Array(id.dropLast()) + Array(",\"error\":".utf8) + body + Array(",\"ok\":false,\"v\":1}".utf8)
        send(envelope, document)
    }

    private func reply(_ envelope: [[UInt8]], _ document: [String: Any]) {
        send(envelope, ControlJSON.data(document))
    }

    private func send(_ envelope: [[UInt8]], _ payload: [UInt8]) {
        guard !socket.isClosed else { return }
        do {
            _ = try socket.sendMultipart(envelope + [payload], flags: [.dontWait])
        } catch {
            log.warning("control_reply_failed", ["error": "\(error)"])
        }
    }
}
