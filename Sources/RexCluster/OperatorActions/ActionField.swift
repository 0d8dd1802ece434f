import RexControl

/// One field of an operator action's JSON object: its member name, what it may hold, and
/// whether it may be left out.
///
/// Every field is a string. Reading checks the form (present, a string) and then the value
/// against the node's limits, with messages that name the action and the field.
public struct ActionField: Sendable, Equatable {
    /// What a field's value may be.
    public enum Kind: Sendable, Equatable {
        /// Non-empty, at most `maxNameBytes`: a follow name, a peer id.
        case name
        /// A name without NUL: a topic, or a prefix ending in `*`.
        case topic
        /// A topic this node may publish: not one of the nodes' own (`$…`).
        case ownTopic
        /// At most `maxValueBytes`, possibly empty: a feed's value, a payload.
        case value
        /// A name that is a ZeroMQ endpoint (`tcp://`, `ipc://`, `inproc://`).
        case endpoint
    }

    /// The member's name in the action object.
    public let name: String
    /// How its value is checked.
    public let kind: Kind
    /// Optional: absent, `null` and `""` all mean none.
    public let isOptional: Bool

    /// A field named `name` of this kind (only the last field of an action may be optional).
    public init(_ name: String, _ kind: Kind, optional: Bool = false) {
        self.name = name
        self.kind = kind
        self.isOptional = optional
    }

    /// Topics starting with this are the nodes' own (snapshot requests and replies).
    public static let reservedTopicPrefix = "$"

    /// The value's checks against `limits`, for the action `type`.
    ///
    /// - Throws: `ControlError` `badAction` or `tooLarge`, naming the action and the field.
    func check(_ text: String, action type: String, limits: NodeLimits) throws(ControlError) {
        switch kind {
        case .value:
            try bounded(text, action: type, limit: limits.maxValueBytes, flag: "--max-value-bytes")
        case .name:
            try nonEmpty(text, action: type)
            try bounded(text, action: type, limit: limits.maxNameBytes, flag: "--max-name-bytes")
        case .topic, .ownTopic:
            try nonEmpty(text, action: type)
            try bounded(text, action: type, limit: limits.maxNameBytes, flag: "--max-name-bytes")
            guard !text.utf8.contains(0) else { throw ControlError(.badAction, "action '\(type)': a topic cannot contain NUL") }
            guard kind == .topic || !text.hasPrefix(Self.reservedTopicPrefix) else {
                throw ControlError(
                    .badAction,
                    "action '\(type)': topics starting with '\(Self.reservedTopicPrefix)' are reserved for the nodes (snapshots)")
            }
        case .endpoint:
            try nonEmpty(text, action: type)
            try bounded(text, action: type, limit: limits.maxNameBytes, flag: "--max-name-bytes")
            guard ["tcp://", "ipc://", "inproc://"].contains(where: { text.hasPrefix($0) }) else {
                throw ControlError(.badAction, "action '\(type)': field '\(name)' must be a ZeroMQ endpoint such as tcp://127.0.0.1:7102")
            }
        }
    }

    private func nonEmpty(_ text: String, action type: String) throws(ControlError) {
        guard !text.isEmpty else { throw ControlError(.badAction, "action '\(type)': field '\(name)' must not be empty") }
    }

    private func bounded(_ text: String, action type: String, limit: Int, flag: String) throws(ControlError) {
        guard text.utf8.count <= limit else {
            throw ControlError(
                .tooLarge,
                "action '\(type)': field '\(name)' has \(text.utf8.count) bytes; at most \(limit) are accepted (\(flag))")
        }
    }
}
