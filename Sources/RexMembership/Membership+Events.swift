extension Membership {
    /// Time passes: probes start and time out, suspicions expire, joins are retried. Cheap to call
    /// early or often; must be called by ``nextDeadline``.
    public mutating func tick(now: Duration, into directives: inout [MembershipDirective]) {
        if nextProbeAt == nil {
            // A random phase, so members started together do not probe in lockstep.
            nextProbeAt = now + settings.protocolPeriod * (Double(random.next() >> 11) * 0x1.0p-53)
        }
        expireRelays(now: now, into: &directives)
        advanceProbe(now: now, into: &directives)
        expireSuspicions(now: now, into: &directives)
        expireTombstones(now: now)
        retryJoin(now: now, into: &directives)
        reconnect(now: now, into: &directives)
    }

    /// Bytes from the network: decoded (a failure is counted and dropped), then handled.
    /// `from`: the member id the transport authenticated (e.g. by its CURVE key), if it knows it;
    /// a message claiming another sender is dropped and counted.
    public mutating func receive(
        _ bytes: [UInt8], from authenticated: String? = nil, now: Duration, into directives: inout [MembershipDirective]
    ) {
        do {
            let message = try MembershipMessage(decoding: bytes)
            receive(message, from: authenticated, now: now, into: &directives)
        } catch {
            counters.decodeFailures[error, default: 0] += 1
        }
    }

    /// A decoded message; `from` as for the bytes.
    public mutating func receive(
        _ message: MembershipMessage, from authenticated: String? = nil, now: Duration, into directives: inout [MembershipDirective]
    ) {
        counters.messagesReceived += 1
        if let authenticated, authenticated != message.sender {
            counters.senderMismatches += 1
            return
        }
        if let admittedIDs, !admittedIDs.contains(message.sender) {
            // Not answered either: a stranger learns nothing (not even the table, from a join).
            counters.strangersRefused += 1
            return
        }
        guard message.sender != me.id,
            MembershipWire.fits(message.sender, limit: MembershipWire.maxIDBytes),
            MembershipWire.fits(message.senderAddress, limit: MembershipWire.maxAddressBytes)
        else {
            counters.messagesIgnored += 1
            return
        }
        if let ceiling = incarnationCeiling(now: now), message.senderIncarnation > ceiling {
            // An incarnation from the future: a forgery (or a clock far ahead), not taken at all.
            counters.futureIncarnations += 1
            return
        }
        // The sender's own word first (its gossip may say it left), then gossip: a refutation of a
        // suspicion about me then rides on my answer.
        let claim = Member(id: message.sender, address: message.senderAddress, status: .alive, incarnation: message.senderIncarnation)
        apply(MemberUpdate(claim), reportedBy: message.sender, fromTable: false, now: now, into: &directives)
        if let position = index[message.sender] { records[position].lastHeard = now }
        for update in message.gossip { apply(update, reportedBy: message.sender, fromTable: false, now: now, into: &directives) }
        let sender = MembershipDestination(id: message.sender, address: message.senderAddress)
        tellIfDead(sender, into: &directives)
        switch message.body {
        case .ping(let sequence):
            send(.ack(sequence: sequence), to: sender, into: &directives)
        case .pingRequest(let sequence, let target, let targetAddress):
            relayProbe(target: target, address: targetAddress, for: sender, sequence: sequence, now: now, into: &directives)
        case .ack(let sequence):
            if let probe, probe.sequence == sequence {
                self.probe = nil
                localHealth = max(0, localHealth - 1)
            } else if let position = relays.firstIndex(where: { $0.sequence == sequence }) {
                let relay = relays.remove(at: position)
                send(.ack(sequence: relay.requesterSequence), to: relay.requester, into: &directives)
            } else {
                counters.messagesIgnored += 1
            }
        case .nack(let sequence):
            if probe?.sequence == sequence { probe?.nacks += 1 } else { counters.messagesIgnored += 1 }
        case .join(let members, let wantsReply):
            for update in members { apply(update, reportedBy: message.sender, fromTable: true, now: now, into: &directives) }
            guard wantsReply else { break }
            guard joinRepliesThisPeriod < settings.joinRepliesPerPeriod else {
                counters.joinRepliesDropped += 1
                break
            }
            joinRepliesThisPeriod += 1
            sendTable(to: sender, asJoin: false, into: &directives)
        case .joinReply(let members):
            isJoined = true
            nextJoinAt = nil
            for update in members { apply(update, reportedBy: message.sender, fromTable: true, now: now, into: &directives) }
        case .gossip:
            break
        }
    }

    /// Adds a member known from configuration (e.g. a cluster file) as alive at `incarnation`,
    /// without gossiping it (every member was given the same file). Ignored when the id or address breaks the wire bounds.
    public mutating func add(
        _ id: String, address: String, incarnation: UInt64 = 0, now: Duration, into directives: inout [MembershipDirective]
    ) {
        guard MembershipWire.fits(id, limit: MembershipWire.maxIDBytes), MembershipWire.fits(address, limit: MembershipWire.maxAddressBytes)
        else {
            counters.membersDropped += 1
            return
        }
        let known = index[id] != nil
        apply(
            MemberUpdate(Member(id: id, address: address, status: .alive, incarnation: incarnation)), reportedBy: me.id, fromTable: false,
            now: now, into: &directives)
        // Configuration is shared knowledge: nothing to gossip about a member every member was given.
        if !known { rumours.remove(about: id) }
    }

    /// A message is first-hand news that its sender is alive at its incarnation (applied in
    /// `receive(_:from:now:into:)`): a member not known (forgotten
    /// after a long partition, or whose join has not reached us) is added, a newer incarnation
    /// accepted. A sender still dead to us after that does not know it was declared dead: we tell
    /// it, so it refutes and every view heals.
    mutating func tellIfDead(_ sender: MembershipDestination, into directives: inout [MembershipDirective]) {
        guard let id = sender.id, let position = index[id], records[position].member.status == .dead else { return }
        send(.gossip, to: sender, first: MemberUpdate(records[position].member), into: &directives)
    }

    // MARK: - Sending

    /// Appends a send directive for `body`, with as much gossip as the bounds allow.
    /// `first`: an update to carry ahead of the queued gossip (it counts against the budget).
    mutating func send(
        _ body: MembershipMessage.Body, to destination: MembershipDestination, first: MemberUpdate? = nil,
        into directives: inout [MembershipDirective]
    ) {
        var gossip: [MemberUpdate] = []
        let header = MembershipWire.headerSize(sender: me.id, senderAddress: me.address, senderIncarnation: me.incarnation, body: body)
        var budget = min(settings.maxGossipBytes, MembershipWire.maxMessageBytes - header)
        if let first {
            gossip.append(first)
            budget -= MembershipWire.encodedSize(of: first)
        }
        rumours.select(
            into: &gossip, recipient: destination.id,
            maxCount: min(settings.maxGossipPerMessage, MembershipWire.maxGossipPerMessage), maxBytes: budget, limit: retransmitLimit
        )
        directives.append(
            .send(
                MembershipMessage(sender: me.id, senderAddress: me.address, senderIncarnation: me.incarnation, body: body, gossip: gossip),
                to: destination))
        counters.messagesSent += 1
    }

    // MARK: - Probing

    mutating func advanceProbe(now: Duration, into directives: inout [MembershipDirective]) {
        guard me.status != .left else {
            probe = nil
            return
        }
        if var current = probe {
            if current.indirectSent == nil, now >= current.indirectAt {
                current.indirectSent = sendPingRequests(for: current, into: &directives)
                probe = current
            }
            if now >= current.endsAt {
                probe = nil
                probeFailed(current, now: now, into: &directives)
            }
        }
        guard let due = nextProbeAt, now >= due else { return }
        if probe != nil {
            // Stretched timeouts (local health) can outlast the period: the probe finishes first.
            return
        }
        let period = scaled(settings.protocolPeriod)
        nextProbeAt = due + period > now ? due + period : now + period
        joinRepliesThisPeriod = 0
        guard let position = nextProbeTarget() else { return }
        let target = records[position].member
        sequence &+= 1
        probe = Probe(
            target: target.id, address: target.address, sequence: sequence,
            indirectAt: now + scaled(settings.pingTimeout), endsAt: now + period
        )
        counters.probesSent += 1
        send(.ping(sequence: sequence), to: MembershipDestination(id: target.id, address: target.address), into: &directives)
    }

    /// The next active member of the shuffled round-robin order; reshuffles at the end of a round.
    mutating func nextProbeTarget() -> Int? {
        for _ in 0..<2 {
            while probeCursor < probeOrder.count {
                let id = probeOrder[probeCursor]
                probeCursor += 1
                if let position = index[id], records[position].member.status.isActive { return position }
            }
            probeOrder.removeAll(keepingCapacity: true)
            for record in records where record.member.status.isActive { probeOrder.append(record.member.id) }
            probeOrder.shuffle(using: &random)
            probeCursor = 0
            if probeOrder.isEmpty { return nil }
        }
        return nil
    }

    /// Asks up to k random alive members (not the target) to probe it; returns how many were asked.
    mutating func sendPingRequests(for probe: Probe, into directives: inout [MembershipDirective]) -> Int {
        let targetIsAlive = index[probe.target].map { records[$0].member.status == .alive } ?? false
        let wanted = min(settings.indirectProbes, count(.alive) - (targetIsAlive ? 1 : 0))
        guard wanted > 0, !records.isEmpty else { return 0 }
        var chosen: [Int] = []
        var attempts = 0
        while chosen.count < wanted && attempts < 8 * wanted + 8 {
            attempts += 1
            let position = random.index(below: records.count)
            let candidate = records[position].member
            guard candidate.status == .alive, candidate.id != probe.target, !chosen.contains(position) else { continue }
            chosen.append(position)
        }
        for position in chosen {
            let intermediary = records[position].member
            counters.pingRequestsSent += 1
            send(
                .pingRequest(sequence: probe.sequence, target: probe.target, targetAddress: probe.address),
                to: MembershipDestination(id: intermediary.id, address: intermediary.address), into: &directives
            )
        }
        return chosen.count
    }

    mutating func probeFailed(_ probe: Probe, now: Duration, into directives: inout [MembershipDirective]) {
        counters.probesFailed += 1
        // Intermediaries that never answered, not even a nack: the trouble may be ours.
        if let asked = probe.indirectSent, asked > 0, probe.nacks < asked {
            localHealth = min(settings.maxLocalHealth, localHealth + 1)
        }
        guard let position = index[probe.target], records[position].member.status.isActive else { return }
        var suspect = records[position].member
        suspect.status = .suspect
        apply(MemberUpdate(suspect, suspectedBy: me.id), reportedBy: me.id, fromTable: false, now: now, into: &directives)
        // Tell the suspect itself: if only our paths to it were lossy, it refutes before the
        // suspicion has spread (one message per failed probe).
        send(
            .gossip, to: MembershipDestination(id: suspect.id, address: suspect.address), first: MemberUpdate(suspect, suspectedBy: me.id),
            into: &directives)
    }

    /// Pings `target` for `requester`; the ack (or a nack at the deadline) goes back to it.
    mutating func relayProbe(
        target: String, address: String, for requester: MembershipDestination, sequence requesterSequence: UInt32, now: Duration,
        into directives: inout [MembershipDirective]
    ) {
        if target == me.id {
            send(.ack(sequence: requesterSequence), to: requester, into: &directives)
            return
        }
        guard relays.count < settings.maxPendingRelays else {
            counters.relaysDropped += 1
            return
        }
        sequence &+= 1
        relays.append(
            Relay(
                sequence: sequence, requester: requester, requesterSequence: requesterSequence, deadline: now + scaled(settings.pingTimeout)
            ))
        send(.ping(sequence: sequence), to: MembershipDestination(id: target, address: address), into: &directives)
    }

    mutating func expireRelays(now: Duration, into directives: inout [MembershipDirective]) {
        guard !relays.isEmpty else { return }
        var position = 0
        while position < relays.count {
            if relays[position].deadline <= now {
                let relay = relays.remove(at: position)
                send(.nack(sequence: relay.requesterSequence), to: relay.requester, into: &directives)
            } else {
                position += 1
            }
        }
    }
}
