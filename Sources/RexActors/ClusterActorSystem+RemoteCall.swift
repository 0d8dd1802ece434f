public import Distributed

extension ClusterActorSystem {
    public func remoteCall<Act, Err, Res>(
        on actor: Act,
        target: RemoteCallTarget,
        invocation: inout InvocationEncoder,
        throwing: Err.Type,
        returning: Res.Type
    ) async throws -> Res where Act: DistributedActor, Act.ID == ClusterActorID, Err: Error, Res: Codable {
        if actor.id.node.isEmpty { try recordProbe(target, invocation, returnsValue: true) }
        switch try await call(actor.id, target, invocation) {
        case .value(let bytes): return try ArgumentCodec.decode(Res.self, from: bytes)
        case .void: throw ActorCallError(.decodingFailed, "\(target) returned no value; \(Res.self) expected")
        }
    }

    public func remoteCallVoid<Act, Err>(
        on actor: Act,
        target: RemoteCallTarget,
        invocation: inout InvocationEncoder,
        throwing: Err.Type
    ) async throws where Act: DistributedActor, Act.ID == ClusterActorID, Err: Error {
        if actor.id.node.isEmpty { try recordProbe(target, invocation, returnsValue: false) }
        switch try await call(actor.id, target, invocation) {
        case .void: return
        case .value: throw ActorCallError(.decodingFailed, "\(target) returned a value; Void expected")
        }
    }

    /// A probe reference's call (see ``register(_:)``): recorded, never sent.
    private func recordProbe(_ target: RemoteCallTarget, _ invocation: InvocationEncoder, returnsValue: Bool) throws -> Never {
        guard let recorder = ProbeRecorder.current else {
            throw ActorCallError(.unknownActor, "the probe id reaches no member")
        }
        recorder.record(
            ProbeRecord(
                identifier: target.identifier, substitutesSelf: invocation.substitutesSelf,
                argumentCount: invocation.arguments.count, returnsValue: returnsValue))
        throw ProbeRecorder.Recorded()
    }

    /// Sends one call and, unless it is one-way, waits for its reply or its failure.
    private func call(_ id: ClusterActorID, _ target: RemoteCallTarget, _ invocation: InvocationEncoder) async throws -> CallReply {
        guard let route = targets.withLock({ $0.outbound[target.identifier] }) else {
            throw ActorCallError(.unregisteredTarget, "\(target) has no stable name here: register its CallTargets")
        }
        let size = 20 + route.name.utf8.count + invocation.arguments.bytes.count
        guard size <= settings.maxFrameBytes else {
            throw ActorCallError(.frameTooLarge, "a \(size)-byte call is over the \(settings.maxFrameBytes)-byte frame limit")
        }
        if route.oneWay {
            let frame = ActorFrame.encodeCall(
                callID: 0, actor: id.number, target: route.name, oneWay: true, arguments: invocation.arguments)
            let shutDown = state.withLock { state in
                if !state.isShutDown { state.metrics.oneWayCallsSent += 1 }
                return state.isShutDown
            }
            if shutDown { throw ActorCallError(.shutDown, "the actor system of \(node) shut down") }
            if let status = state.withLock({ $0.calls.statuses[id.node] }), status != .alive {
                throw ActorCallError(status == .dead ? .memberDead : .memberLeft, "member \(id.node) is \(status)")
            }
            guard transport.send(frame, id.node) else {
                count(\.transportRefusals)
                throw ActorCallError(.transportBusy, "the transport cannot take a call to \(id.node) now")
            }
            return .void
        }
        let deadline = Self.callDeadline ?? settings.defaultDeadline
        return try await withUnsafeThrowingContinuation { continuation in
            let waiter = CallWaiter(continuation: continuation, timer: nil)
            let decision = state.withLock { state -> CallLedger<CallWaiter>.Start in
                if state.isShutDown { return .reject(ActorCallError(.shutDown, "the actor system of \(node) shut down")) }
                let decision = state.calls.start(to: id.node, waiter: waiter)
                if case .send = decision { state.metrics.callsSent += 1 }
                return decision
            }
            let callID: UInt64
            switch decision {
            case .reject(let error):
                continuation.resume(throwing: error)
                return
            case .send(let id):
                callID = id
            }
            let frame = ActorFrame.encodeCall(
                callID: callID, actor: id.number, target: route.name, oneWay: false, arguments: invocation.arguments)
            guard transport.send(frame, id.node) else {
                let waiter = state.withLock { state in
                    state.metrics.transportRefusals += 1
                    return state.calls.remove(callID)
                }
                waiter?.fail(ActorCallError(.transportBusy, "the transport cannot take a call to \(id.node) now"))
                return
            }
            startDeadline(deadline, for: callID)
        }
    }

    /// Fails call `callID` after `deadline` on the system's clock, unless its reply came first.
    private func startDeadline(_ deadline: Duration, for callID: UInt64) {
        let sleep = self.sleep
        let timer = Task { [weak self] in
            do { try await sleep(deadline) } catch { return }
            guard let self else { return }
            let waiter = self.state.withLock { state in
                let waiter = state.calls.remove(callID)
                if waiter != nil { state.metrics.deadlinesExpired += 1 }
                return waiter
            }
            waiter?.continuation.resume(throwing: ActorCallError(.deadlineExceeded, "no reply within \(deadline)"))
        }
        let attached = state.withLock { $0.calls.update(callID) { $0.timer = timer } }
        if !attached { timer.cancel() }
    }
}
