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

    private func handle(_ frames: [[UInt8]]) {
        let envelope = Array(frames.dropLast())
        let payload = frames.last ?? []
        var requestID: Any = NSNull()
        do throws(ControlError) {
            guard let object = try? JSONSerialization.jsonObject(with: Data(payload)),
                  let request = object as? [String: Any] else {
                throw ControlError(.badRequest, "the request is not a JSON object")
            }
            if let id = request["id"] { requestID = id }
            guard let version = request["v"] as? Int else {
                throw ControlError(.badRequest, "missing field 'v' (protocol version, must be 1)")
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
            let action = try OperatorAction.parse(request["action"])
            store.dispatch(action)
            log.debug("dispatched", ["action": "\(action)"])
            succeed(envelope, requestID, ["accepted": true, "action": OperatorAction.json(action)])
        case "state":
            succeed(envelope, requestID, ControlJSON.state(store.state))
        case "keep":
            let nowMs = node.uptimeMs
            respondLater(envelope, requestID) { store in ControlJSON.keep(await store.keep(), nowMs: nowMs) }
        case "metrics":
            let io = self.io.counters
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
                        "gaps": state.follows.values.reduce(0) { $0 + $1.gaps }, "hwmDrops": io.hwmDrops,
                    ],
                    "mailbox": ["depth": depth, "maxDepth": maxDepth],
                    "sockets": ["open": io.socketsOpen, "created": io.socketsCreated],
                    "process": ["rssBytes": ProcessStats.residentBytes, "fds": ProcessStats.openFileDescriptors],
                ]
            }
        default:
            throw ControlError(.unknownOp, "unknown op '\(op)' (expected ping, dispatch, state, keep, metrics)")
        }
    }

    private func succeed(_ envelope: [[UInt8]], _ requestID: Any, _ result: Any) {
        reply(envelope, ["v": 1, "id": requestID, "ok": true, "result": result])
    }

    /// Builds the result off the reactor (it awaits the store), then replies on the reactor.
    private func respondLater(
        _ envelope: [[UInt8]], _ requestID: Any,
        _ build: @escaping @Sendable (Store<NodeAction, NodeState, NodeEnvironment>) async -> [String: Any]
    ) {
        guard let bound else { return }
        let store = self.store
        let id = ControlJSON.data(["id": requestID])
        Task {
            let result = ControlJSON.data(["result": await build(store)])
            bound.reactor.execute {
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
