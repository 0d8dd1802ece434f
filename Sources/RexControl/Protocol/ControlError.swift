/// Why a node refused a control request: the `error` member of an error reply, and what a
/// node's request handling throws.
///
/// ```json
/// {"v": 1, "id": "r-17", "ok": false, "error": {"code": "badAction", "message": "action 'set': field 'topic' must be a string"}}
/// ```
///
/// An error reply never stops the node and never drops an action it already accepted.
public struct ControlError: Error, Codable, Sendable, Equatable, CustomStringConvertible {
    /// What kind of refusal; a struct so that a client reads codes from newer nodes too.
    public struct Code: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Not JSON, not an object, or a request field missing or of the wrong type.
        public static let badRequest = Code(rawValue: "badRequest")
        /// A `"v"` other than 1.
        public static let badVersion = Code(rawValue: "badVersion")
        /// An `op` the node does not know.
        public static let unknownOp = Code(rawValue: "unknownOp")
        /// An action `type` the node does not know.
        public static let unknownAction = Code(rawValue: "unknownAction")
        /// A field of the action is missing or of the wrong type, or a topic is reserved.
        public static let badAction = Code(rawValue: "badAction")
        /// The node is stopping and takes no more actions.
        public static let shuttingDown = Code(rawValue: "shuttingDown")
        /// The request, a name or a value is over the node's limits, or the reply would be.
        public static let tooLarge = Code(rawValue: "tooLarge")
        /// A new feed, follow, peer or watch beyond the node's limit.
        public static let limitReached = Code(rawValue: "limitReached")
        /// The operator's role does not allow the operation (a `viewer` sending a `dispatch`).
        public static let forbidden = Code(rawValue: "forbidden")
        /// The node could not make the action durable (its journal failed to commit): the
        /// action was not applied, and the node takes no more operator actions.
        public static let notDurable = Code(rawValue: "notDurable")
        /// The node refused a statement of the cluster authority: not one, not signed by the
        /// authority, stale, about a revoked key, or the node has no authority (the message
        /// says which).
        public static let statementRefused = Code(rawValue: "statementRefused")

        public var description: String { rawValue }
    }

    public var code: Code
    /// One sentence for the operator: what was wrong, and the limit or form that applies.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}
