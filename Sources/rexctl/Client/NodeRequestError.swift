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
    }

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
