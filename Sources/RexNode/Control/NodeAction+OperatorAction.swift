import RexControl

extension NodeAction {
    /// The node action an operator's action asks for, once every value is within `limits`:
    /// names, topics and endpoints non-empty and at most `maxNameBytes`, values and payloads at
    /// most `maxValueBytes`, topics without NUL, the nodes' own topics (`$…`) neither set nor
    /// published, endpoints ZeroMQ endpoints.
    ///
    /// - Throws: ``ControlError`` `badAction` or `tooLarge`, naming the action and the field.
    init(_ action: OperatorAction, within limits: NodeLimits) throws(ControlError) {
        let check = OperatorValueCheck(action: action.kind.rawValue, limits: limits)
        switch action {
        case .set(let topic, let value):
            self = .set(topic: try check.ownTopic("topic", topic), value: try check.value("value", value))
        case .unset(let topic):
            self = .unset(topic: try check.topic("topic", topic))
        case .follow(let name, let topic, let from):
            let name = try check.name("name", name)
            let topic = try check.topic("topic", topic)
            self = .follow(name: name, topic: topic, from: try from.map { text throws(ControlError) in try check.bounded("from", text) })
        case .unfollow(let name):
            self = .unfollow(name: try check.name("name", name))
        case .publish(let topic, let payload):
            self = .publish(topic: try check.ownTopic("topic", topic), payload: try check.value("payload", payload))
        case .addPeer(let id, let endpoint):
            self = .addPeer(id: try check.name("id", id), endpoint: try check.endpoint("endpoint", endpoint))
        case .removePeer(let id):
            self = .removePeer(id: try check.name("id", id))
        }
    }
}

/// The checks of one operator action's values, with messages naming the action and the field.
private struct OperatorValueCheck {
    let action: String
    let limits: NodeLimits

    /// A name, topic or endpoint: non-empty and at most `maxNameBytes`.
    func name(_ field: String, _ text: String) throws(ControlError) -> String {
        guard !text.isEmpty else { throw ControlError(.badAction, "action '\(action)': field '\(field)' must not be empty") }
        return try bounded(field, text)
    }

    func bounded(_ field: String, _ text: String) throws(ControlError) -> String {
        guard text.utf8.count <= limits.maxNameBytes else {
            throw ControlError(
                .tooLarge,
                "action '\(action)': field '\(field)' has \(text.utf8.count) bytes; "
                    + "at most \(limits.maxNameBytes) are accepted (--max-name-bytes)")
        }
        return text
    }

    /// A value or payload: at most `maxValueBytes`.
    func value(_ field: String, _ text: String) throws(ControlError) -> String {
        guard text.utf8.count <= limits.maxValueBytes else {
            throw ControlError(
                .tooLarge,
                "action '\(action)': field '\(field)' has \(text.utf8.count) bytes; "
                    + "at most \(limits.maxValueBytes) are accepted (--max-value-bytes)")
        }
        return text
    }

    func topic(_ field: String, _ text: String) throws(ControlError) -> String {
        let topic = try name(field, text)
        guard !topic.utf8.contains(0) else { throw ControlError(.badAction, "action '\(action)': a topic cannot contain NUL") }
        return topic
    }

    /// A topic this node may publish: not one of the nodes' own (`$…`).
    func ownTopic(_ field: String, _ text: String) throws(ControlError) -> String {
        let topic = try self.topic(field, text)
        guard !topic.hasPrefix(WireMessage.reservedPrefix) else {
            throw ControlError(
                .badAction,
                "action '\(action)': topics starting with '\(WireMessage.reservedPrefix)' "
                    + "are reserved for the nodes (snapshots)")
        }
        return topic
    }

    func endpoint(_ field: String, _ text: String) throws(ControlError) -> String {
        let endpoint = try name(field, text)
        guard ["tcp://", "ipc://", "inproc://"].contains(where: { endpoint.hasPrefix($0) }) else {
            throw ControlError(.badAction, "action '\(action)': field '\(field)' must be a ZeroMQ endpoint such as tcp://127.0.0.1:7102")
        }
        return endpoint
    }
}
