extension Membership {
    /// Changes the ids this member takes (``admittedIDs``) while it runs: a secured cluster's
    /// authority admitted a member, or revoked the last key of one.
    ///
    /// A member known alive or suspect whose id is no longer admitted is declared `left` here
    /// at once (a `statusChanged` directive, so the runtime drops its connections), is not
    /// probed again, and nothing it or others say about it is taken any more. Nothing is
    /// gossiped about it: every member is given the same statement and decides for itself. A
    /// member newly admitted is taken from its first message (or gossip about it).
    public mutating func admit(_ ids: Set<String>?, now: Duration, into directives: inout [MembershipDirective]) {
        admittedIDs = ids
        guard let ids else { return }
        for position in records.indices {
            let member = records[position].member
            guard member.status.isActive, !ids.contains(member.id) else { continue }
            var left = member
            left.status = .left
            change(at: position, to: left, suspectedBy: "", now: now, into: &directives)
            rumours.remove(about: member.id)
            counters.membersRevoked += 1
        }
    }
}
