import RexCluster
import RexControl
import RexMembership

extension MetricsDocument.Membership {
    /// The membership section of a node's metrics: its peers by membership status, the
    /// membership socket's counts (sends and frames) and the machine's (decoding and
    /// protocol-level drops). Nil for a node without the membership (no socket).
    init?(socket: MembershipSocket.Counters?, machine: MembershipCounters?, peers: some Sequence<Peer>) {
        guard let socket else { return nil }
        let machine = machine ?? MembershipCounters()
        var dropped = Dictionary(uniqueKeysWithValues: Self.droppedReasons.map { ($0, 0) })
        dropped["send_failed"] = socket.dropped
        dropped["unkeyed"] = socket.unkeyed
        dropped["bad_frames"] = socket.refused
        for (error, count) in machine.decodeFailures { dropped[error.metricsReason, default: 0] += count }
        dropped["sender_mismatch"] = machine.senderMismatches
        dropped["ignored"] = machine.messagesIgnored
        dropped["relay_limit"] = machine.relaysDropped
        dropped["join_reply_limit"] = machine.joinRepliesDropped
        dropped["members_dropped"] = machine.membersDropped
        dropped["stranger"] = machine.strangersRefused
        dropped["future_incarnation"] = machine.futureIncarnations
        self.init(
            members: MetricsDocument.MemberCounts(counting: peers), sent: socket.sent, received: socket.received, dropped: dropped,
            probesSent: machine.probesSent, probesFailed: machine.probesFailed, suspicionsRefuted: machine.suspicionsRefuted)
    }
}

extension MembershipWireError {
    /// The `reason` label of a decoding failure (see `MetricsDocument.Membership.droppedReasons`).
    var metricsReason: String {
        switch self {
        case .oversized: "oversized"
        case .truncated: "truncated"
        case .badMagic: "bad_magic"
        case .unsupportedVersion: "unsupported_version"
        case .unknownKind: "unknown_kind"
        case .unknownStatus: "unknown_status"
        case .badString: "bad_string"
        case .tooManyEntries: "too_many_entries"
        case .badVarint: "bad_varint"
        case .trailingBytes: "trailing_bytes"
        // Encoding only: never a decoding failure; counted with the malformed frames if it were.
        case .unencodable: "bad_frames"
        }
    }
}
