import ZMQ

/// What a follow matches: one exact topic, or every topic starting with a prefix (`eu.*`).
///
/// On the wire a topic frame is the topic followed by a NUL byte, so the exact subscription
/// `a.b\0` never matches `a.bc`, while the prefix subscription `a.` matches both.
enum TopicPattern: Hashable, Sendable {
    case exact(String)
    case prefix(String)

    init(_ topic: String) {
        if topic.hasSuffix("*") {
            self = .prefix(String(topic.dropLast()))
        } else {
            self = .exact(topic)
        }
    }

    /// The bytes to SUBSCRIBE to.
    var subscription: [UInt8] {
        switch self {
        case .exact(let topic): Array(topic.utf8) + [0]
        case .prefix(let prefix): Array(prefix.utf8)
        }
    }

    func matches(_ topic: String) -> Bool {
        switch self {
        case .exact(let exact): topic == exact
        case .prefix(let prefix): topic.hasPrefix(prefix)
        }
    }
}

/// One message as it travels between nodes: `[topic\0, "sender sequence", value]`.
struct WireMessage: Sendable, Equatable {
    let topic: String
    let sender: String
    let sequence: UInt64
    let value: String

    static let heartbeatPrefix = "$hb."

    /// Parses three frames; nil when they do not follow the format.
    static func parse(_ frames: ZMQFrames) -> WireMessage? {
        guard frames.count == 3, let last = frames[0].last, last == 0 else { return nil }
        let topic = String(decoding: UnsafeRawBufferPointer(rebasing: frames[0].dropLast()), as: UTF8.self)
        guard let space = frames[1].firstIndex(of: UInt8(ascii: " ")) else { return nil }
        let sender = String(decoding: UnsafeRawBufferPointer(rebasing: frames[1][..<space]), as: UTF8.self)
        var sequence: UInt64 = 0
        for byte in frames[1][(space + 1)...] {
            guard byte >= 48, byte <= 57 else { return nil }
            sequence = sequence &* 10 &+ UInt64(byte - 48)
        }
        let value = String(decoding: frames[2], as: UTF8.self)
        return WireMessage(topic: topic, sender: sender, sequence: sequence, value: value)
    }
}
