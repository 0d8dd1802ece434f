import RexControl

extension JSONValue {
    /// The members of an object, keys sorted (as every document writes them); none otherwise.
    var members: [(key: String, value: JSONValue)] {
        guard case .object(let members) = self else { return [] }
        return members.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// The value read as a document of `type` (nil when it is not one): a node's state as the
    /// feeds feature's, where a node runs that feature.
    func decoded<Document: Decodable>(as type: Document.Type) -> Document? {
        guard let bytes = try? ControlCodec.encode(self) else { return nil }
        return try? ControlCodec.decode(type, from: bytes)
    }
}
