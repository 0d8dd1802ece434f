import CZMQ

/// Flags for ``ZMQSocket/send(_:flags:)-(UnsafeRawBufferPointer,_)``.
public struct ZMQSendFlags: OptionSet, Sendable, Hashable {
    /// The libzmq flag bits.
    public let rawValue: Int32
    /// Creates flags from libzmq bits.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// Do not block: if the message cannot be queued now, `send` returns `false` (`ZMQ_DONTWAIT`).
    public static let dontWait = ZMQSendFlags(rawValue: ZMQ_DONTWAIT)
    /// More frames of the same message follow (`ZMQ_SNDMORE`).
    public static let more = ZMQSendFlags(rawValue: ZMQ_SNDMORE)
}
