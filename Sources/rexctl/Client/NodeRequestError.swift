import RexControl

/// A request to a node that did not produce a result. Always exit 2.
///
/// ``description`` is the one line printed on stderr: what happened and what to try next.
struct NodeRequestError: Error, Equatable, CustomStringConvertible {
    enum Kind: Equatable {
        /// No reply within the timeout.
        case unreachable(timeout: Duration)
        /// The node answered `ok: false`.
        case refused(ControlError)
        /// The reply was not a protocol v1 document, or not the document asked for.
        case badReply(String)
        /// libzmq refused to create or connect the socket (bad endpoint, …).
        case transport(String)
        /// The node's ZAP handler refused our key (status 400: not in its operators file).
        case keyRefused(status: UInt32)
        /// We spoke plain to a node that requires CURVE.
        case nodeRequiresCurve
        /// We spoke plain and the node closed every connection during the handshake.
        case closedDuringHandshake
        /// We spoke CURVE (the cluster file has a key for the node) but the node runs plain.
        case nodeNotSecured
        /// The node closed our CURVE handshake: it does not hold the key the cluster file gives.
        case serverKeyMismatch
    }

    /// The operator key rexctl used (Z85, for messages), if any.
    var operatorKey: String?

    var node: NodeAddress
    var kind: Kind

    /// The error a reply's failure means.
    init(node: NodeAddress, _ failure: ReceivedReply.Failure) {
        self.node = node
        switch failure {
        case .refused(let error): kind = .refused(error)
        case .unreadable(let detail): kind = .badReply(detail)
        }
    }

    init(node: NodeAddress, kind: Kind) {
        self.node = node
        self.kind = kind
    }

    var description: String {
        switch kind {
        case .unreachable(let timeout):
            return "node \(node.id) at \(node.control) did not answer within \(DurationParser.format(timeout))"
                + " — is it running? Try 'rexctl nodes'."
        case .refused(let error):
            return "node \(node.id) answered with an error: \(error.code.rawValue): \(error.message)"
        case .badReply(let detail):
            return "node \(node.id) at \(node.control) sent a reply rexctl cannot read (\(detail))"
                + " — is that endpoint a rexnode control socket speaking protocol v1?"
        case .transport(let detail):
            return "cannot talk to node \(node.id) at \(node.control): \(detail)"
                + " — check its control endpoint in the cluster file or --node."
        case .keyRefused(let status):
            let key = operatorKey.map { "key \(CurveKeyText.short($0))" } ?? "rexctl's key"
            return "node \(node.id) at \(node.control) refused \(key) (ZAP status \(status))"
                + " — add its public key to the node's operators file, or pass --key with a key that is listed there."
        case .nodeRequiresCurve:
            return "node \(node.id) at \(node.control) requires CURVE and rexctl spoke plain"
                + " — address it through a cluster file that has its \"key\" (--cluster FILE), not --node alone."
        case .closedDuringHandshake:
            return "node \(node.id) at \(node.control) closed every connection during the handshake: it likely requires CURVE"
                + " and rexctl spoke plain — address it through a cluster file that has its \"key\" (--cluster FILE), not --node alone."
        case .nodeNotSecured:
            return "node \(node.id) at \(node.control) runs without CURVE, but the cluster file has a key for it"
                + " — restart the node secured, or remove its \"key\" from the cluster file."
        case .serverKeyMismatch:
            let key = node.key.map { " \(CurveKeyText.short($0))" } ?? ""
            return "node \(node.id) at \(node.control) did not complete the CURVE handshake: it does not hold the key\(key)"
                + " the cluster file gives for it — another process on that port, or a stale cluster file."
        }
    }

    /// ``description`` without the closing hint to run `rexctl nodes` (for `nodes` itself).
    var descriptionWithoutHint: String {
        let hint = " Try 'rexctl nodes'."
        let text = description
        return text.hasSuffix(hint) ? String(text.dropLast(hint.count)) : text
    }

    /// Whether the node did not answer at all (as opposed to answering badly).
    var isUnreachable: Bool {
        if case .unreachable = kind { return true }
        return false
    }
}
