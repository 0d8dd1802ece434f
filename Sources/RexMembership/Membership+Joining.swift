extension Membership {
    /// Joins a running cluster through `seeds` (addresses; this member's own is skipped): a join
    /// goes to each now and again every `joinRetryInterval` until one answers with its table.
    /// With no seeds the member is a cluster of one that others join.
    public mutating func join(seeds: [String], now: Duration, into directives: inout [MembershipDirective]) {
        self.seeds = []
        for seed in seeds
        where seed != me.address && MembershipWire.fits(seed, limit: MembershipWire.maxAddressBytes) && self.seeds.count < 16 {
            if !self.seeds.contains(seed) { self.seeds.append(seed) }
        }
        isJoined = self.seeds.isEmpty
        nextJoinAt = nil
        guard !isJoined else { return }
        sendJoins(now: now, into: &directives)
    }

    /// Leaves gracefully: this member is `left` at a higher incarnation, `leaveFanout` members
    /// hear it at once, and the member stops probing; it still answers probes (spreading the
    /// news) for as long as the runtime keeps feeding it before it exits.
    public mutating func leave(now: Duration, into directives: inout [MembershipDirective]) {
        guard me.status != .left else { return }
        me.status = .left
        if me.incarnation < .max { me.incarnation += 1 }
        probe = nil
        nextJoinAt = nil
        rumours.add(MemberUpdate(me))
        var chosen: [Int] = []
        let wanted = min(settings.leaveFanout, count(.alive) + count(.suspect))
        var attempts = 0
        while chosen.count < wanted && attempts < 8 * wanted + 8 {
            attempts += 1
            let position = random.index(below: records.count)
            guard records[position].member.status.isActive, !chosen.contains(position) else { continue }
            chosen.append(position)
        }
        for position in chosen {
            let member = records[position].member
            send(.gossip, to: MembershipDestination(id: member.id, address: member.address), into: &directives)
        }
    }

    mutating func sendJoins(now: Duration, into directives: inout [MembershipDirective]) {
        // Jittered: joiners turned away by the same busy seed do not all come back at once.
        nextJoinAt = now + settings.joinRetryInterval * (0.5 + Double(random.next() >> 11) * 0x1.0p-53)
        for seed in seeds {
            send(.join(members: [MemberUpdate(me)], wantsReply: true), to: MembershipDestination(id: nil, address: seed), into: &directives)
        }
    }

    mutating func retryJoin(now: Duration, into directives: inout [MembershipDirective]) {
        guard !isJoined, me.status != .left, let due = nextJoinAt, now >= due else { return }
        sendJoins(now: now, into: &directives)
    }

    /// Now and then, sends the table to one member believed dead: if it is in fact alive on the
    /// other side of a healed partition, the two tables meet and the sides merge.
    mutating func reconnect(now: Duration, into directives: inout [MembershipDirective]) {
        guard settings.reconnectInterval > .zero, me.status != .left else { return }
        // Each member waits N/10 intervals (jittered, so one side does not knock all at once):
        // the cluster as a whole makes about 10 attempts per interval whatever its size, so a
        // crashed member's tombstone costs a bounded number of table-sized messages.
        let spacing = settings.reconnectInterval * (Double(max(10, activeCount)) / 10) * (0.5 + Double(random.next() >> 11) * 0x1.0p-53)
        guard let due = nextReconnectAt else {
            nextReconnectAt = now + spacing
            return
        }
        guard now >= due else { return }
        nextReconnectAt = now + spacing
        guard count(.dead) > 0 else { return }
        let live = tombstones.count - tombstoneHead
        guard live > 0 else { return }
        for _ in 0..<4 {
            let (id, _) = tombstones[tombstoneHead + random.index(below: live)]
            if let position = index[id], records[position].member.status == .dead {
                let member = records[position].member
                sendTable(to: MembershipDestination(id: member.id, address: member.address), asJoin: true, into: &directives)
                return
            }
        }
    }

    /// This member's table (itself first) in pages within the wire bounds: join replies, or a join
    /// (only its first page asks for a reply).
    mutating func sendTable(to destination: MembershipDestination, asJoin: Bool, into directives: inout [MembershipDirective]) {
        let header = MembershipWire.headerSize(
            sender: me.id, senderAddress: me.address, senderIncarnation: me.incarnation, body: .join(members: [], wantsReply: true))
        var page: [MemberUpdate] = [MemberUpdate(me)]
        var bytes = header + MembershipWire.encodedSize(of: page[0])
        var first = true
        func flush(_ page: [MemberUpdate], into directives: inout [MembershipDirective]) {
            let body: MembershipMessage.Body = asJoin ? .join(members: page, wantsReply: first) : .joinReply(members: page)
            first = false
            directives.append(
                .send(
                    MembershipMessage(sender: me.id, senderAddress: me.address, senderIncarnation: me.incarnation, body: body),
                    to: destination))
            counters.messagesSent += 1
        }
        for record in records {
            let update = MemberUpdate(record.member, suspectedBy: record.suspicion?.suspecters.first ?? me.id)
            let size = MembershipWire.encodedSize(of: update)
            if page.count == MembershipWire.maxMembersPerMessage || bytes + size > MembershipWire.maxMessageBytes {
                flush(page, into: &directives)
                page.removeAll(keepingCapacity: true)
                bytes = header
            }
            page.append(update)
            bytes += size
        }
        flush(page, into: &directives)
    }
}
