extension JSONValue {
    /// A document as a tree, as the codec would write it (object keys, `null`s, number text),
    /// built directly from the value: no JSON text is written and read back, so turning a large
    /// state into a tree costs about what encoding it does.
    ///
    /// ```swift
    /// let tree = try JSONValue(encoding: state)
    /// tree["settings"]?["feedIntervalMs"]   // .number("100")
    /// ```
    ///
    /// - Throws: `EncodingError` for a value the codec would refuse (a non-finite number).
    public init(encoding document: some Encodable) throws {
        let root = TreeEncoder.Node()
        try document.encode(to: TreeEncoder(node: root, codingPath: []))
        self = root.value
    }
}

/// An `Encoder` whose containers fill a ``JSONValue`` tree.
private struct TreeEncoder: Encoder {
    /// One value being built; containers write into it (a class: containers outlive the calls
    /// that create them and must share it).
    final class Node {
        enum Kind {
            case value, object, array
        }

        var kind = Kind.value
        var leaf = JSONValue.null
        /// Kept in the node itself and mutated in place: an object of 100k members is built in
        /// linear time.
        var members: [String: Node] = [:]
        var elements: [Node] = []

        var value: JSONValue {
            switch kind {
            case .value: leaf
            case .object: .object(members.mapValues(\.value))
            case .array: .array(elements.map(\.value))
            }
        }

        func set(_ value: JSONValue) {
            kind = .value
            leaf = value
        }
    }

    let node: Node
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.kind = .object
        return KeyedEncodingContainer(Keyed(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.kind = .array
        return Unkeyed(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { Single(node: node, codingPath: codingPath) }

    /// A leaf's value: integers and strings as they are, a floating-point number as the codec
    /// writes it (its own shortest form, `50` for 50.0), which only the codec knows.
    static func leaf(_ value: some Encodable, codingPath: [any CodingKey]) throws -> JSONValue? {
        switch value {
        case let string as String: return .string(string)
        case let bool as Bool: return .bool(bool)
        case let integer as any BinaryInteger: return .number("\(integer)")
        case let number as Double: return .number(String(decoding: try ControlCodec.encode(number), as: UTF8.self))
        case let number as Float: return .number(String(decoding: try ControlCodec.encode(number), as: UTF8.self))
        default: return nil
        }
    }

    static func encode(_ value: some Encodable, into node: Node, codingPath: [any CodingKey]) throws {
        if let leaf = try leaf(value, codingPath: codingPath) {
            node.set(leaf)
        } else {
            try value.encode(to: TreeEncoder(node: node, codingPath: codingPath))
        }
    }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let node: Node
        let codingPath: [any CodingKey]

        private func child(_ key: Key) -> Node {
            if let existing = node.members[key.stringValue] { return existing }
            let child = Node()
            node.members[key.stringValue] = child
            return child
        }

        mutating func encodeNil(forKey key: Key) throws { child(key).set(.null) }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            try TreeEncoder.encode(value, into: child(key), codingPath: codingPath + [key])
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
            -> KeyedEncodingContainer<NestedKey>
        {
            TreeEncoder(node: child(key), codingPath: codingPath + [key]).container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            TreeEncoder(node: child(key), codingPath: codingPath + [key]).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder { TreeEncoder(node: child(Key(stringValue: "super")!), codingPath: codingPath) }

        mutating func superEncoder(forKey key: Key) -> any Encoder { TreeEncoder(node: child(key), codingPath: codingPath + [key]) }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let node: Node
        let codingPath: [any CodingKey]

        var count: Int { node.elements.count }

        private func append() -> Node {
            let child = Node()
            node.elements.append(child)
            return child
        }

        mutating func encodeNil() throws { append().set(.null) }

        mutating func encode<T: Encodable>(_ value: T) throws {
            try TreeEncoder.encode(value, into: append(), codingPath: codingPath)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            TreeEncoder(node: append(), codingPath: codingPath).container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            TreeEncoder(node: append(), codingPath: codingPath).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder { TreeEncoder(node: append(), codingPath: codingPath) }
    }

    struct Single: SingleValueEncodingContainer {
        let node: Node
        let codingPath: [any CodingKey]

        mutating func encodeNil() throws { node.set(.null) }

        mutating func encode<T: Encodable>(_ value: T) throws {
            try TreeEncoder.encode(value, into: node, codingPath: codingPath)
        }
    }
}
