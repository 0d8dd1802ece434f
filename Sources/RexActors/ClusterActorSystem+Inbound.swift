import Distributed

extension ClusterActorSystem {
    /// Takes one frame the transport received from `member` (as it authenticated it).
    ///
    /// Never blocks and never throws: a call starts a task (or joins its member's one-way queue),
    /// a reply resumes its caller, a check-in updates the listings; a frame that is oversized,
    /// malformed or forged is counted in ``metrics`` and dropped.
    public func receive(_ frame: [UInt8], from member: String) {
        guard frame.count <= settings.maxFrameBytes else {
            count(\.oversizedFrames)
            return
        }
        let decoded: ActorFrame
        do { decoded = try ActorFrame.decode(frame) } catch {
            count(\.malformedFrames)
            return
        }
        switch decoded {
        case .call(let call): receiveCall(call, from: member)
        case .replyValue(let callID, let value): complete(callID, from: member) { $0.succeed(.value(value)) }
        case .replyVoid(let callID): complete(callID, from: member) { $0.succeed(.void) }
        case .replyError(let callID, let error): complete(callID, from: member) { $0.fail(error) }
        case .checkIn(let key, let number): receiveReception(checkIn: true, key: key, id: ClusterActorID(node: member, number: number))
        case .checkOut(let key, let number): receiveReception(checkIn: false, key: key, id: ClusterActorID(node: member, number: number))
        }
    }

    /// Takes the membership's verdict on `member`: `.dead`/`.left` fail the calls waiting on it and
    /// remove its actors from listings; `.alive` sends it this member's check-ins.
    public func memberChanged(_ member: String, to status: ActorMemberStatus) {
        guard member != node else { return }
        let (waiters, error, keys, checkIns) = state.withLock { state in
            let (waiters, error) = state.calls.memberChanged(member, to: status)
            state.metrics.callsFailedByMembership += waiters.count
            let keys = status == .alive ? [] : state.reception.removeNode(member)
            let checkIns = status == .alive ? state.reception.checkIns(of: node) : []
            return (waiters, error, keys, checkIns)
        }
        if let error { for waiter in waiters { waiter.fail(error) } }
        for (key, number) in checkIns {
            send(ActorFrame.encodeReception(checkIn: true, key: key, actor: number), to: member)
        }
        publishListings(keys)
    }

    /// Sends a reply frame to the caller of `callID` (the result handler's path).
    func sendReply(_ frame: [UInt8], to caller: String, callID: UInt64) {
        guard frame.count <= settings.maxFrameBytes else {
            let error = ActorCallError(.frameTooLarge, "the reply is over the \(settings.maxFrameBytes)-byte frame limit")
            send(ActorFrame.encodeReplyError(callID: callID, error), to: caller)
            return
        }
        send(frame, to: caller)
    }

    /// Hands `frame` to the transport, counting a refusal.
    func send(_ frame: [UInt8], to member: String) {
        if !transport.send(frame, member) { count(\.transportRefusals) }
    }

    private func complete(_ callID: UInt64, from member: String, _ resume: (CallWaiter) -> Void) {
        let waiter = state.withLock { state -> CallWaiter? in
            switch state.calls.complete(callID, from: member) {
            case .resume(let waiter):
                state.metrics.repliesMatched += 1
                return waiter
            case .unknown:
                state.metrics.unknownReplies += 1
            case .forged:
                state.metrics.forgedReplies += 1
            }
            return nil
        }
        if let waiter { resume(waiter) }
    }

    private func receiveCall(_ call: ActorFrame.Call, from member: String) {
        let refusal: ActorCallError?
        let actor = state.withLock { $0.actors[call.actor]?.actor }
        if let actor {
            let target = targets.withLock { $0.inbound[call.target]?[ObjectIdentifier(type(of: actor))] }
            if let target, target.oneWay == call.oneWay {
                if target.argumentCount == call.arguments.count {
                    admit(InboundCall(actor: actor, target: target, call: call, caller: member))
                    return
                }
                refusal = ActorCallError(
                    .decodingFailed, "\(call.target) takes \(target.argumentCount) arguments, the call carries \(call.arguments.count)")
            } else {
                count(\.unknownTargets)
                refusal = ActorCallError(.unknownTarget, "no target \(call.target) on \(type(of: actor)) at \(node)")
            }
        } else {
            count(\.unknownActors)
            refusal = ActorCallError(.unknownActor, "no actor \(ClusterActorID(node: node, number: call.actor))")
        }
        if let refusal { refuse(call, from: member, refusal) }
    }

    private func refuse(_ call: ActorFrame.Call, from member: String, _ error: ActorCallError) {
        if call.oneWay {
            count(\.oneWayFailures)
        } else {
            send(ActorFrame.encodeReplyError(callID: call.callID, error), to: member)
        }
    }

    /// Starts `job` unless its caller is at its inbound bound.
    private func admit(_ job: InboundCall) {
        let limit = settings.maxInboundCallsPerMember
        let (admitted, startDrain) = state.withLock { state -> (Bool, Bool) in
            let running = state.inbound[job.caller] ?? 0
            guard running < limit, !state.isShutDown else {
                state.metrics.inboundRejected += 1
                return (false, false)
            }
            state.inbound[job.caller] = running + 1
            state.metrics.callsExecuted += 1
            guard job.call.oneWay else { return (true, false) }
            let idle = state.oneWay[job.caller] == nil
            state.oneWay[job.caller, default: OneWayQueue()].jobs.append(job)
            return (true, idle)
        }
        guard admitted else {
            refuse(job.call, from: job.caller, ActorCallError(.tooManyInFlight, "\(limit) calls from \(job.caller) already run at \(node)"))
            return
        }
        if !job.call.oneWay {
            Task { await self.run(job) }
        } else if startDrain {
            Task { await self.drainOneWay(from: job.caller) }
        }
    }

    /// Runs `caller`'s one-way calls in arrival order until its queue is empty.
    private func drainOneWay(from caller: String) async {
        while true {
            let batch = state.withLock { state -> [InboundCall] in
                guard let jobs = state.oneWay[caller]?.jobs, !jobs.isEmpty else {
                    state.oneWay[caller] = nil
                    return []
                }
                state.oneWay[caller]?.jobs = []
                return jobs
            }
            if batch.isEmpty { return }
            for job in batch { await run(job) }
        }
    }

    /// Executes one call on its actor; the result handler sends the outcome.
    private func run(_ job: InboundCall) async {
        let handler = ClusterResultHandler(system: self, caller: job.caller, callID: job.call.callID, oneWay: job.call.oneWay)
        var decoder = ClusterInvocationDecoder(
            arguments: job.call.arguments, selfType: job.target.substitutesSelf ? type(of: job.actor) : nil)
        do {
            try await execute(on: job.actor, job.target.identifier, &decoder, handler)
        } catch {
            handler.fail(error)
        }
        state.withLock { state in
            let left = (state.inbound[job.caller] ?? 1) - 1
            state.inbound[job.caller] = left > 0 ? left : nil
        }
    }

    private func execute<Act: DistributedActor>(
        on actor: Act, _ identifier: String, _ decoder: inout ClusterInvocationDecoder, _ handler: ClusterResultHandler
    ) async throws {
        try await executeDistributedTarget(on: actor, target: RemoteCallTarget(identifier), invocationDecoder: &decoder, handler: handler)
    }
}
