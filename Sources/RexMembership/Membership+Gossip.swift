extension Membership {
    /// Merges one update, from gossip or a table, into the view; an accepted change is queued as
    /// gossip and announced. `fromTable`: a table's "dead" only makes us suspect (it may be a
    /// stale view from the other side of a partition; the member gets to refute).
    mutating func apply(
        _ update: MemberUpdate, reportedBy reporter: String, fromTable: Bool, now: Duration, into directives: inout [MembershipDirective]
    ) {
        if let ceiling = incarnationCeiling(now: now), update.member.incarnation > ceiling {
            // From the future: taken, it could pin a member beyond any refutation (UInt64.max).
            counters.futureIncarnations += 1
            return
        }
        var incoming = update.member
        var suspecter = update.suspectedBy.isEmpty ? reporter : update.suspectedBy
        if fromTable && incoming.status == .dead {
            // Unless we hold it alive, the tombstone of another table has nothing to tell us.
            guard index[incoming.id] != nil || incoming.id == me.id else { return }
            incoming.status = .suspect
            suspecter = reporter
        }
        if incoming.id == me.id {
            heardAboutMe(incoming)
            return
        }
        if let admittedIDs, !admittedIDs.contains(incoming.id) {
            // Not even a known member's news: one no longer admitted stays as it was left.
            counters.strangersRefused += 1
            return
        }
        var staleDeath = false
        if !fromTable, incoming.status == .dead, let position = index[incoming.id], records[position].member.status.isActive,
            let heard = records[position].lastHeard, now - heard < scaled(settings.protocolPeriod) * 2
        {
            // We heard from it first-hand within two periods: the notice is likely stale (from the
            // other side of a partition that just healed, whose stalled connections deliver many
            // copies of it at once). Suspect it instead — or, already suspect, count the notice as
            // one more suspecter — so it refutes before this member cuts it off (its data-plane
            // connection, and what is published meanwhile). Lifeguard does the same with a death
            // notice about a member it can reach.
            incoming.status = .suspect
            suspecter = reporter
            staleDeath = true
        }
        if staleDeath, let position = index[incoming.id] {
            let before = records[position].suspicion?.suspecters.count ?? 0
            applyKnown(incoming, at: position, suspectedBy: suspecter, now: now, into: &directives)
            // Tell the member at once (as a failed probe does): it may not hear the rumour from
            // us for a few periods, and only its refutation ends the suspicion. At most once per
            // suspecter counted, so a burst of copies costs a bounded number of messages.
            if let suspicion = records[position].suspicion, suspicion.suspecters.count > before {
                let suspect = records[position].member
                send(
                    .gossip, to: MembershipDestination(id: suspect.id, address: suspect.address),
                    first: MemberUpdate(suspect, suspectedBy: suspecter), into: &directives)
            }
            return
        }
        guard let position = index[incoming.id] else {
            insert(incoming, suspectedBy: suspecter, now: now, into: &directives)
            return
        }
        applyKnown(incoming, at: position, suspectedBy: suspecter, now: now, into: &directives)
    }

    /// `apply` for a member in the table: the precedence rules of ``Membership``.
    mutating func applyKnown(
        _ incoming: Member, at position: Int, suspectedBy suspecter: String, now: Duration, into directives: inout [MembershipDirective]
    ) {
        let current = records[position].member
        switch incoming.status {
        case .alive:
            guard incoming.incarnation > current.incarnation else { return }
        case .suspect:
            if current.status == .suspect && incoming.incarnation == current.incarnation {
                confirmSuspicion(at: position, by: suspecter, now: now)
                return
            }
            guard
                current.status == .alive
                    ? incoming.incarnation >= current.incarnation
                    : current.status == .suspect && incoming.incarnation > current.incarnation
            else { return }
        case .dead:
            guard current.status.isActive, incoming.incarnation >= current.incarnation else { return }
        case .left:
            guard current.status != .left, incoming.incarnation >= current.incarnation else { return }
        }
        change(at: position, to: incoming, suspectedBy: suspecter, now: now, into: &directives)
    }

    /// A member heard of the first time: remembered if it is alive or suspect (there is nothing to
    /// learn from the tombstone of a stranger) and the table has room.
    mutating func insert(_ member: Member, suspectedBy suspecter: String, now: Duration, into directives: inout [MembershipDirective]) {
        guard member.status.isActive else { return }
        if let admittedIDs, !admittedIDs.contains(member.id) {
            counters.strangersRefused += 1
            return
        }
        guard records.count < settings.maxMembers else {
            counters.membersDropped += 1
            return
        }
        index[member.id] = records.count
        records.append(Record(member: member, suspicion: nil, since: now))
        statusCounts[Int(member.status.rawValue)] += 1
        if member.status == .suspect { startSuspicion(at: records.count - 1, by: suspecter, now: now) }
        insertIntoProbeOrder(member.id)
        rumours.add(MemberUpdate(member, suspectedBy: suspecter))
        directives.append(.statusChanged(member, previous: nil))
    }

    /// Records an accepted change of a known member.
    mutating func change(
        at position: Int, to member: Member, suspectedBy suspecter: String, now: Duration, into directives: inout [MembershipDirective]
    ) {
        let previous = records[position].member
        records[position].member = member
        records[position].since = now
        statusCounts[Int(previous.status.rawValue)] -= 1
        statusCounts[Int(member.status.rawValue)] += 1
        if previous.status == .suspect { endSuspicion(at: position) }
        switch member.status {
        case .alive:
            if !previous.status.isActive { insertIntoProbeOrder(member.id) }
        case .suspect:
            startSuspicion(at: position, by: suspecter, now: now)
        case .dead, .left:
            tombstones.append((member.id, now))
            if probe?.target == member.id { probe = nil }
        }
        rumours.add(MemberUpdate(member, suspectedBy: suspecter))
        if previous.status != member.status || previous.address != member.address {
            directives.append(.statusChanged(member, previous: previous.status))
        }
    }

    /// Someone's belief about me: anything but "alive at my incarnation or older" is refuted
    /// by raising my incarnation (after a leave: by repeating that I left).
    mutating func heardAboutMe(_ claim: Member) {
        if me.status == .left {
            guard claim.status != .left else { return }
            if claim.incarnation >= me.incarnation { me.incarnation = claim.incarnation == .max ? .max : claim.incarnation + 1 }
            rumours.add(MemberUpdate(me))
            return
        }
        guard claim.status != .alive || claim.incarnation > me.incarnation else { return }
        guard claim.incarnation >= me.incarnation else { return }
        me.incarnation = claim.incarnation == .max ? .max : claim.incarnation + 1
        rumours.add(MemberUpdate(me))
        if claim.status == .suspect || claim.status == .dead {
            counters.suspicionsRefuted += 1
            localHealth = min(settings.maxLocalHealth, localHealth + 1)
        }
    }

    // MARK: - Suspicion

    mutating func startSuspicion(at position: Int, by suspecter: String, now: Duration) {
        records[position].suspicion = Suspicion(started: now, suspecters: [suspecter], deadline: now + suspicionTimeout(confirmations: 0))
        suspects.append(records[position].member.id)
    }

    mutating func endSuspicion(at position: Int) {
        records[position].suspicion = nil
        let id = records[position].member.id
        if let at = suspects.firstIndex(of: id) { suspects.remove(at: at) }
    }

    /// Another member suspects the same incarnation: the deadline comes closer (Lifeguard), and
    /// the new report is gossiped on so others can count it too.
    mutating func confirmSuspicion(at position: Int, by suspecter: String, now: Duration) {
        guard var suspicion = records[position].suspicion,
            suspicion.suspecters.count <= settings.suspicionConfirmations,
            !suspicion.suspecters.contains(suspecter)
        else { return }
        suspicion.suspecters.append(suspecter)
        suspicion.deadline = suspicion.started + suspicionTimeout(confirmations: suspicion.suspecters.count - 1)
        records[position].suspicion = suspicion
        rumours.add(MemberUpdate(records[position].member, suspectedBy: suspecter))
    }

    mutating func expireSuspicions(now: Duration, into directives: inout [MembershipDirective]) {
        guard !suspects.isEmpty else { return }
        var expired: [Int] = []
        for id in suspects {
            if let position = index[id], let suspicion = records[position].suspicion, suspicion.deadline <= now { expired.append(position) }
        }
        for position in expired {
            var dead = records[position].member
            dead.status = .dead
            change(at: position, to: dead, suspectedBy: "", now: now, into: &directives)
        }
    }

    // MARK: - Tombstones

    mutating func expireTombstones(now: Duration) {
        while tombstoneHead < tombstones.count, tombstones[tombstoneHead].since + settings.tombstoneRetention <= now {
            let (id, since) = tombstones[tombstoneHead]
            tombstoneHead += 1
            if let position = index[id], !records[position].member.status.isActive, records[position].since == since {
                removeRecord(at: position)
            }
        }
        if tombstoneHead > 64 && tombstoneHead * 2 > tombstones.count {
            tombstones.removeFirst(tombstoneHead)
            tombstoneHead = 0
        }
    }

    mutating func removeRecord(at position: Int) {
        let removed = records[position].member
        statusCounts[Int(removed.status.rawValue)] -= 1
        index[removed.id] = nil
        rumours.remove(about: removed.id)
        let last = records.count - 1
        if position != last {
            records[position] = records[last]
            index[records[position].member.id] = position
        }
        records.removeLast()
    }

    mutating func insertIntoProbeOrder(_ id: String) {
        let remaining = probeOrder.count - probeCursor
        probeOrder.insert(id, at: probeCursor + random.index(below: remaining + 1))
    }
}
