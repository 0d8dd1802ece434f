extension MetricsDocument {
    /// A node's SWIM membership: its peers by membership status and the membership messages it
    /// sent, received and dropped (by reason). Only a node running the membership sends it.
    public struct Membership: Codable, Sendable, Equatable {
        /// Peers by membership status; `unknown` counts configured peers it has not reported on.
        public var members: MemberCounts
        /// Messages handed to the membership socket (after their drops) and received from it
        /// (before decoding).
        public var sent: Int
        public var received: Int
        /// Messages dropped, by reason (``droppedReasons``; every reason is present).
        public var dropped: [String: Int]
        /// Probes started and probes that ended without an ack (direct or relayed).
        public var probesSent: Int
        public var probesFailed: Int
        /// Times this node heard itself suspected or declared dead and refuted it.
        public var suspicionsRefuted: Int

        public init(
            members: MemberCounts, sent: Int, received: Int, dropped: [String: Int], probesSent: Int = 0, probesFailed: Int = 0,
            suspicionsRefuted: Int = 0
        ) {
            self.members = members
            self.sent = sent
            self.received = received
            self.dropped = dropped
            self.probesSent = probesSent
            self.probesFailed = probesFailed
            self.suspicionsRefuted = suspicionsRefuted
        }

        /// Why a membership message was dropped, in the order metrics list them:
        /// - `send_failed`: a send the peer's full queue or a lost route refused;
        /// - `unkeyed`: a send to a member whose key a secured node does not know;
        /// - `bad_frames`: inbound frames that are not [routing id, payload], or (secured) without
        ///   an authenticated member;
        /// - the decoder's reasons (`oversized`, `truncated`, `bad_magic`, `unsupported_version`,
        ///   `unknown_kind`, `unknown_status`, `bad_string`, `too_many_entries`, `bad_varint`,
        ///   `trailing_bytes`): bytes that are not a membership message;
        /// - `sender_mismatch`: a message claiming another sender than the authenticated one;
        /// - `ignored`: from this node itself, late, or answering nothing asked;
        /// - `relay_limit`, `join_reply_limit`: ping-requests and joins beyond their bounds;
        /// - `members_dropped`: members not remembered (table full, or a bad id or address);
        /// - `stranger`: members a secured node did not take because their id holds no key.
        public static let droppedReasons = [
            "send_failed", "unkeyed", "bad_frames", "oversized", "truncated", "bad_magic", "unsupported_version", "unknown_kind",
            "unknown_status", "bad_string", "too_many_entries", "bad_varint", "trailing_bytes", "sender_mismatch", "ignored",
            "relay_limit", "join_reply_limit", "members_dropped", "stranger", "future_incarnation",
        ]

        /// The sum over every reason (saturating).
        public var droppedTotal: Int {
            dropped.values.reduce(0) { total, count in
                let (sum, overflow) = total.addingReportingOverflow(count)
                return overflow ? Int.max : sum
            }
        }
    }

    /// Peers by membership status.
    public struct MemberCounts: Codable, Sendable, Equatable {
        public var alive: Int
        public var suspect: Int
        public var dead: Int
        public var left: Int
        /// Peers the membership has not reported on (known from configuration only).
        public var unknown: Int

        public init(alive: Int = 0, suspect: Int = 0, dead: Int = 0, left: Int = 0, unknown: Int = 0) {
            self.alive = alive
            self.suspect = suspect
            self.dead = dead
            self.left = left
            self.unknown = unknown
        }

        /// Counts `peers` by their `membership` status (nil: `unknown`).
        public init(counting peers: some Sequence<Peer>) {
            self.init()
            for peer in peers {
                switch peer.membership {
                case .alive: alive += 1
                case .suspect: suspect += 1
                case .dead: dead += 1
                case .left: left += 1
                case nil: unknown += 1
                }
            }
        }
    }
}

extension MetricsDocument.Membership {
    /// `rexnode_members{status=…}` by membership status (in place of the heartbeat statuses,
    /// whose `gone` folds dead and left), then the membership's message counters; every reason
    /// of ``droppedReasons`` is a series, so the set of series never changes between scrapes.
    func writePrometheus(into out: inout PrometheusWriter) {
        out.family("rexnode_members", "Peers by SWIM membership status.", type: "gauge")
        for (status, count) in [
            ("alive", members.alive), ("suspect", members.suspect), ("dead", members.dead), ("left", members.left),
            ("unknown", members.unknown),
        ] {
            out.sample("rexnode_members", labels: ["status": status], Double(count))
        }
        out.counter("rexnode_membership_messages_sent_total", "Membership messages handed to the membership socket.", sent)
        out.counter("rexnode_membership_messages_received_total", "Membership messages received, before decoding.", received)
        out.family("rexnode_membership_messages_dropped_total", "Membership messages dropped, by reason.", type: "counter")
        for reason in Self.droppedReasons {
            out.sample("rexnode_membership_messages_dropped_total", labels: ["reason": reason], Double(dropped[reason] ?? 0))
        }
        out.counter("rexnode_membership_probes_total", "Membership probes started.", probesSent)
        out.counter("rexnode_membership_probes_failed_total", "Membership probes that ended without an ack.", probesFailed)
        out.counter(
            "rexnode_membership_suspicions_refuted_total", "Times this node refuted a suspicion or a death notice about itself.",
            suspicionsRefuted)
    }
}
