/// Which feature a node runs, and its version: what `ping` and the metrics say, so an operator
/// (and a client that knows only some features) can tell the nodes of a cluster apart.
///
/// ```json
/// {"name": "feeds", "version": "1"}
/// ```
public struct FeatureIdentity: Codable, Sendable, Equatable {
    /// The feature's name, e.g. `feeds`.
    public var name: String
    /// The feature's own version (its author's, not the runtime's).
    public var version: String

    public init(name: String, version: String) {
        self.name = name
        self.version = version
    }
}
