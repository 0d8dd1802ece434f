extension MetricsDocument {
    /// A secured node's cluster authority: the statements it holds and what it made of the
    /// statements it was given since it started (from operators and from its peers' gossip).
    public struct Authority: Codable, Sendable, Equatable {
        /// Keys the node holds a statement about (its ledger's size).
        public var statements: Int
        /// The highest serial among them (0: none): a new statement needs a higher one.
        public var highestSerial: UInt64
        /// Statements accepted since the node started.
        public var accepted: Int
        /// Statements refused since the node started, by reason (`unsigned`, `otherSigner`,
        /// `badSignature`, `replayed`, `stale`, …; only reasons seen), and `notPersisted` for one
        /// accepted but not written to the data directory (so not taken).
        public var refused: [String: Int]

        public init(statements: Int = 0, highestSerial: UInt64 = 0, accepted: Int = 0, refused: [String: Int] = [:]) {
            self.statements = statements
            self.highestSerial = highestSerial
            self.accepted = accepted
            self.refused = refused
        }

        func writePrometheus(into out: inout PrometheusWriter) {
            out.gauge("rexnode_authority_statements", "Keys the node holds a cluster-authority statement about.", statements)
            out.gauge("rexnode_authority_highest_serial", "The highest serial among the statements held.", Double(highestSerial))
            out.family(
                "rexnode_authority_statements_received_total",
                "Statements given to the node (by operators and peers), by result: accepted or the refusal's reason.", type: "counter")
            out.sample("rexnode_authority_statements_received_total", labels: ["result": "accepted"], Double(accepted))
            for (reason, count) in refused.sorted(by: { $0.key < $1.key }) {
                out.sample("rexnode_authority_statements_received_total", labels: ["result": reason], Double(count))
            }
        }
    }
}
