/// The result of `ping`: who the node is and where it listens.
///
/// ```json
/// {"control": "tcp://127.0.0.1:7201", "feature": {"name": "feeds", "version": "1"}, "node": "n1", "pid": 4242,
///  "pub": "tcp://127.0.0.1:7101", "uptimeMs": 5123}
/// ```
public struct PingDocument: Codable, Sendable, Equatable {
    public var node: String
    /// Milliseconds since the node started.
    public var uptimeMs: Int
    /// Its publisher and control endpoints (resolved: a `:*` port shows the port bound).
    public var pub: String
    public var control: String
    public var pid: Int
    /// The feature the node runs. Optional: nodes before it did not send it.
    public var feature: FeatureIdentity?

    public init(node: String, uptimeMs: Int, pub: String, control: String, pid: Int, feature: FeatureIdentity? = nil) {
        self.feature = feature
        self.node = node
        self.uptimeMs = uptimeMs
        self.pub = pub
        self.control = control
        self.pid = pid
    }
}
