import RexControl

extension JSONValue {
    /// The members of an object, keys sorted (as every document writes them); none otherwise.
    var members: [(key: String, value: JSONValue)] {
        guard case .object(let members) = self else { return [] }
        return members.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
