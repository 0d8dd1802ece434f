/// What an operator may do on a secured node's control endpoint.
public enum OperatorRole: String, Codable, Sendable, CaseIterable {
    /// Every operation.
    case admin
    /// Reads only: ping, state, keep, metrics and watches; a `dispatch` is `forbidden`.
    case viewer

    /// Whether this role may perform `operation`.
    public func permits(_ operation: ControlOperation) -> Bool {
        switch self {
        case .admin: return true
        case .viewer:
            switch operation {
            case .ping, .state, .keep, .metrics, .watch, .renew, .unwatch: return true
            case .dispatch: return false
            }
        }
    }
}
