/// One control request: what a client sends and a node reads (docs/protocol.md).
///
/// ```json
/// {"action": {"topic": "eu.prices", "type": "set", "value": "42"}, "id": "r-17", "op": "dispatch", "v": 1}
/// ```
///
/// `Action` is the type of the `action` member: a node reads it as a ``JSONValue`` and judges it
/// by the feature's own descriptions of its actions; a client sends any `Encodable` object of
/// the form `{"type": …, fields…}`.
public struct ControlRequest<Action: Sendable>: Sendable {
    /// Echoed in every reply to this request (any JSON value; a watch's pushes carry it too).
    public var id: JSONValue?
    public var operation: ControlOperation
    /// With `dispatch` only.
    public var action: Action?
    /// With `watch` only: what to stream.
    public var documents: [WatchedDocument]?
    /// With `watch` only: how long the watch lives unless renewed (default
    /// ``WatchPolicy/defaultLeaseMs``).
    public var leaseMs: Int?
    /// With `renew` and `unwatch`: the id of the watch meant; nil for every watch of this client.
    public var watch: JSONValue?
    /// With `statement` only: the signed statement's bytes in base64 (what a statement file holds).
    public var statement: String?

    /// The longest `statement` a node reads, in base64 characters (a statement is at most 204
    /// bytes; this leaves room for a later version's).
    public static var maxStatementCharacters: Int { 1024 }

    /// A request for `operation`; give only the members that operation uses.
    public init(
        _ operation: ControlOperation, id: JSONValue? = nil, action: Action? = nil, documents: [WatchedDocument]? = nil,
        leaseMs: Int? = nil, watch: JSONValue? = nil, statement: String? = nil
    ) {
        self.id = id
        self.operation = operation
        self.action = action
        self.documents = documents
        self.leaseMs = leaseMs
        self.watch = watch
        self.statement = statement
    }

    enum Key: String, CodingKey {
        case v, id, op, action, documents, leaseMs, watch, statement
    }
}

extension ControlRequest: Encodable where Action: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(ProtocolVersion.current, forKey: .v)
        try container.encodeIfPresent(id, forKey: .id)
        try container.encode(operation, forKey: .op)
        try container.encodeIfPresent(action, forKey: .action)
        try container.encodeIfPresent(documents, forKey: .documents)
        try container.encodeIfPresent(leaseMs, forKey: .leaseMs)
        if let watch { try container.encode(watch, forKey: .watch) }
        try container.encodeIfPresent(statement, forKey: .statement)
    }
}

extension ControlRequest: Decodable where Action: Decodable {
    /// Reads the members the request's `op` uses (the version is checked on the raw text, see
    /// ``read(_:)``).
    ///
    /// - Throws: ``ControlError`` saying which member is wrong.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        id = try? container.decodeIfPresent(JSONValue.self, forKey: .id)
        guard let op = try? container.decode(String.self, forKey: .op) else {
            throw ControlError(.badRequest, "missing field 'op' (string)")
        }
        guard let operation = ControlOperation(rawValue: op) else {
            throw ControlError(.unknownOp, "unknown op '\(op)' (expected \(ControlOperation.list))")
        }
        self.operation = operation
        switch operation {
        case .dispatch:
            guard container.contains(.action), (try? container.decodeNil(forKey: .action)) == false else {
                throw ControlError(.badRequest, "'action' must be a JSON object with a 'type'")
            }
            action = try container.decode(Action.self, forKey: .action)
        case .watch:
            documents = try WatchedDocument.list(in: container, forKey: .documents)
            leaseMs = try WatchPolicy.lease(in: container, forKey: .leaseMs)
        case .renew, .unwatch:
            if container.contains(.watch) { watch = try container.decode(JSONValue.self, forKey: .watch) }
        case .statement:
            guard let text = try? container.decode(String.self, forKey: .statement), !text.isEmpty,
                text.utf8.count <= Self.maxStatementCharacters
            else {
                throw ControlError(
                    .badRequest,
                    "'statement' must be the statement in base64, 1 to \(Self.maxStatementCharacters) characters (a statement file's line)")
            }
            statement = text
        case .ping, .state, .keep, .metrics:
            break
        }
    }
}

extension ControlRequest where Action: Decodable {
    /// Reads a request as a node does: its `id` first (echoed even when the rest is wrong),
    /// then the version rule, then the members its `op` uses.
    ///
    /// - Returns: the id (`null` when absent or unreadable) and the request, or why it is refused.
    public static func read(_ payload: [UInt8]) -> (id: JSONValue, request: Result<ControlRequest, ControlError>) {
        guard let envelope = try? ControlCodec.decode(Envelope.self, from: payload) else {
            return (.null, .failure(ControlError(.badRequest, "the request is not a JSON object")))
        }
        switch ProtocolVersion.read(payload) {
        case .current:
            return (envelope.id, envelope.request)
        case .unsupported(let version):
            let message = "protocol version \(version) is not supported (this node speaks \(ProtocolVersion.current))"
            return (envelope.id, .failure(ControlError(.badVersion, message)))
        case .repeated:
            return (envelope.id, .failure(ControlError(.badRequest, "field 'v' appears more than once")))
        case .missing, .notAnInteger, .notAnObject:
            return (envelope.id, .failure(ControlError(.badRequest, "missing field 'v' (protocol version: the integer 1)")))
        }
    }

    /// The id and the outcome of reading the rest, in one pass over the text.
    private struct Envelope: Decodable {
        let id: JSONValue
        let request: Result<ControlRequest, ControlError>

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            guard let id = try? container.decodeIfPresent(JSONValue.self, forKey: .id) ?? .null else {
                // A number beyond any type, or a lone surrogate: valid enough to parse, not to echo.
                self.id = .null
                request = .failure(ControlError(.badRequest, "field 'id' cannot be echoed (a number or text out of range)"))
                return
            }
            self.id = id
            do {
                request = .success(try ControlRequest(from: decoder))
            } catch let error as ControlError {
                request = .failure(error)
            } catch {
                request = .failure(ControlError(.badRequest, decodingSummary(error)))
            }
        }
    }
}

extension ControlRequest: Equatable where Action: Equatable {}
