/// What a follow matches: one exact topic, or every topic starting with a prefix (`eu.*`).
///
/// On the wire a topic frame is the topic followed by a NUL byte, so the exact subscription
/// `a.b\0` never matches `a.bc`, while the prefix subscription `a.` matches both.
public enum TopicPattern: Hashable, Sendable {
    /// This topic only.
    case exact(String)
    /// Every topic that starts with this prefix.
    case prefix(String)

    /// `eu.*` is the prefix `eu.`; anything else is exact.
    public init(_ topic: String) {
        if topic.hasSuffix("*") {
            self = .prefix(String(topic.dropLast()))
        } else {
            self = .exact(topic)
        }
    }

    /// The bytes to SUBSCRIBE to.
    package var subscription: [UInt8] {
        var bytes: [UInt8] = []
        appendSubscription(to: &bytes)
        return bytes
    }

    /// Appends `subscription` to `bytes` (one buffer for a snapshot request's tag and pattern).
    package func appendSubscription(to bytes: inout [UInt8]) {
        switch self {
        case .exact(let topic):
            bytes.reserveCapacity(bytes.count + topic.utf8.count + 1)
            bytes.append(contentsOf: topic.utf8)
            bytes.append(0)
        case .prefix(let prefix):
            bytes.append(contentsOf: prefix.utf8)
        }
    }

    /// Whether a message on `topic` matches, byte for byte as libzmq matches subscriptions.
    public func matches(_ topic: String) -> Bool {
        switch self {
        case .exact(let exact): topic == exact
        case .prefix(let prefix): topic.utf8.starts(with: prefix.utf8)  // bytes, as libzmq matches
        }
    }
}
