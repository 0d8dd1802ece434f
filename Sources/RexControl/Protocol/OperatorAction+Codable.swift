extension OperatorAction: Codable {
    /// Every field name an action may carry.
    enum Field: String, CodingKey {
        case type, topic, value, name, from, payload, id, endpoint
    }

    /// Reads an action object; unknown members are ignored.
    ///
    /// - Throws: ``ControlError``: `badRequest` when it is not an object, `badAction` when its
    ///   `type` or a field is missing or not a string, `unknownAction` for another `type`.
    public init(from decoder: any Decoder) throws {
        guard let container = try? decoder.container(keyedBy: Field.self) else {
            throw ControlError(.badRequest, "'action' must be a JSON object with a 'type'")
        }
        guard let type = try? container.decode(String.self, forKey: .type) else {
            throw ControlError(.badAction, "action: field 'type' must be a string (one of \(Kind.list))")
        }
        guard let kind = Kind(rawValue: type) else {
            throw ControlError(.unknownAction, "unknown action type '\(type)' (expected one of \(Kind.list))")
        }
        let fields = ActionFields(kind: kind, container: container)
        switch kind {
        case .set: self = .set(topic: try fields.string(.topic), value: try fields.string(.value))
        case .unset: self = .unset(topic: try fields.string(.topic))
        case .follow:
            self = .follow(name: try fields.string(.name), topic: try fields.string(.topic), from: try fields.optionalString(.from))
        case .unfollow: self = .unfollow(name: try fields.string(.name))
        case .publish: self = .publish(topic: try fields.string(.topic), payload: try fields.string(.payload))
        case .addPeer: self = .addPeer(id: try fields.string(.id), endpoint: try fields.string(.endpoint))
        case .removePeer: self = .removePeer(id: try fields.string(.id))
        }
    }

    /// Writes `{"type": …, fields…}`; a follow without `from` has no `from` member.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Field.self)
        try container.encode(kind.rawValue, forKey: .type)
        switch self {
        case .set(let topic, let value):
            try container.encode(topic, forKey: .topic)
            try container.encode(value, forKey: .value)
        case .unset(let topic):
            try container.encode(topic, forKey: .topic)
        case .follow(let name, let topic, let from):
            try container.encode(name, forKey: .name)
            try container.encode(topic, forKey: .topic)
            try container.encodeIfPresent(from, forKey: .from)
        case .unfollow(let name):
            try container.encode(name, forKey: .name)
        case .publish(let topic, let payload):
            try container.encode(topic, forKey: .topic)
            try container.encode(payload, forKey: .payload)
        case .addPeer(let id, let endpoint):
            try container.encode(id, forKey: .id)
            try container.encode(endpoint, forKey: .endpoint)
        case .removePeer(let id):
            try container.encode(id, forKey: .id)
        }
    }
}

/// The fields of one action object, read with messages that name the action and the field.
private struct ActionFields {
    let kind: OperatorAction.Kind
    let container: KeyedDecodingContainer<OperatorAction.Field>

    func string(_ field: OperatorAction.Field) throws(ControlError) -> String {
        guard container.contains(field) else {
            throw ControlError(.badAction, "action '\(kind.rawValue)': missing field '\(field.rawValue)'")
        }
        guard let text = try? container.decode(String.self, forKey: field) else {
            throw ControlError(.badAction, "action '\(kind.rawValue)': field '\(field.rawValue)' must be a string")
        }
        return text
    }

    /// Absent, `null` and `""` are all none.
    func optionalString(_ field: OperatorAction.Field) throws(ControlError) -> String? {
        guard container.contains(field), (try? container.decodeNil(forKey: field)) == false else { return nil }
        let text = try string(field)
        return text.isEmpty ? nil : text
    }
}
