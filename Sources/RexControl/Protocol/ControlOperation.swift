/// The operations of the control protocol: a request's `op` (docs/protocol.md).
public enum ControlOperation: String, Codable, Sendable, CaseIterable {
    /// Who the node is and how long it has run (``PingDocument``).
    case ping
    /// Queue one of the feature's operator actions on the node's store (``DispatchDocument``).
    case dispatch
    /// The node's state (the feature's state document).
    case state
    /// The engine's keep set (``KeepDocument``).
    case keep
    /// The node's counters (``MetricsDocument``).
    case metrics
    /// Stream keep-set and state changes to this client until it unwatches or stops renewing
    /// (``WatchDocument``, one reply per change).
    case watch
    /// Extend the lease of this client's watches (``RenewDocument``).
    case renew
    /// End this client's watches (``UnwatchDocument``).
    case unwatch
    /// Give the node a statement of the cluster authority (``StatementReceipt``): any operator
    /// may, the authority's signature is what authorizes it.
    case statement

    /// `ping, dispatch, …`, for messages.
    static var list: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
