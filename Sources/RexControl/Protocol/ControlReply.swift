/// One reply as a node writes it: the request's `id` echoed, and either the result document or
/// the error.
///
/// ```json
/// {"id": "r-17", "ok": true, "result": {"accepted": true, "action": {…}}, "v": 1}
/// {"error": {"code": "badAction", "message": "…"}, "id": "r-17", "ok": false, "v": 1}
/// ```
///
/// `id` is always present (`null` when the request had none or could not be read).
public struct ControlReply<Payload: Encodable & Sendable>: Encodable, Sendable {
    public var id: JSONValue
    public var outcome: Result<Payload, ControlError>

    /// The reply to the request with `id` (`.null` when it had none): a result or an error.
    public init(id: JSONValue, _ outcome: Result<Payload, ControlError>) {
        self.id = id
        self.outcome = outcome
    }

    enum Key: String, CodingKey {
        case v, id, ok, result, error
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(ProtocolVersion.current, forKey: .v)
        try container.encode(id, forKey: .id)
        switch outcome {
        case .success(let payload):
            try container.encode(true, forKey: .ok)
            try container.encode(payload, forKey: .result)
        case .failure(let error):
            try container.encode(false, forKey: .ok)
            try container.encode(error, forKey: .error)
        }
    }
}

extension ControlReply where Payload == JSONValue {
    /// An error reply (its payload type does not matter).
    public static func refusing(id: JSONValue, _ error: ControlError) -> ControlReply {
        ControlReply(id: id, .failure(error))
    }
}
