/// A document a watch streams: a request's `documents` member lists them.
public enum WatchedDocument: String, Codable, Sendable, CaseIterable, Hashable {
    /// The engine's keep set (``KeepDocument``).
    case keep
    /// The node's state (the feature's state document).
    case state

    /// Reads a non-empty list of document names.
    ///
    /// - Throws: ``ControlError`` `badRequest` for a missing or empty list, or an unknown name.
    static func list<Key: CodingKey>(in container: KeyedDecodingContainer<Key>, forKey key: Key) throws(ControlError)
        -> [WatchedDocument]
    {
        let names = allCases.map(\.rawValue).joined(separator: ", ")
        guard let texts = try? container.decode([String].self, forKey: key), !texts.isEmpty else {
            throw ControlError(.badRequest, "field '\(key.stringValue)' must list what to watch (\(names))")
        }
        var documents: [WatchedDocument] = []
        for text in texts {
            guard let document = WatchedDocument(rawValue: text) else {
                throw ControlError(.badRequest, "unknown document '\(text)' to watch (expected \(names))")
            }
            if !documents.contains(document) { documents.append(document) }
        }
        return documents
    }
}
