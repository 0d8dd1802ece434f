extension DecodingError {
    /// One line saying where a document is not what was expected, e.g.
    /// `field 'channels.0.opens' is not Int` (the debug description repeats the whole path and
    /// the decoder's internals).
    var summary: String {
        func path(_ context: Context, _ last: (any CodingKey)? = nil) -> String {
            (context.codingPath + (last.map { [$0] } ?? [])).map { $0.intValue.map(String.init) ?? $0.stringValue }
                .joined(separator: ".")
        }
        switch self {
        case .typeMismatch(let type, let context): return "field '\(path(context))' is not \(type)"
        case .valueNotFound(let type, let context): return "field '\(path(context))' is null, not \(type)"
        case .keyNotFound(let key, let context): return "missing field '\(path(context, key))'"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not valid JSON" : "field '\(path(context))' is not valid"
        @unknown default: return "\(self)"
        }
    }
}

/// The one line of any error met while decoding a document.
func decodingSummary(_ error: any Error) -> String {
    (error as? DecodingError)?.summary ?? (error as? ControlError)?.message ?? "\(error)"
}
