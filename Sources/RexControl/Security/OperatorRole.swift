/// What an operator may do on a secured node's control endpoint.
public enum OperatorRole: String, Codable, Sendable, CaseIterable {
    /// Every operation, and every action.
    case admin
    /// Reads (ping, state, keep, metrics and watches), and only the actions a feature marks as
    /// a viewer's: a `dispatch` of any other action is `forbidden`.
    case viewer

    /// Whether this role may do what `required` may: an admin what a viewer may too.
    public func includes(_ required: OperatorRole) -> Bool {
        self == .admin || required == .viewer
    }
}
