import CZMQ

/// Readiness flags for ``ZMQPoller`` and ``ZMQSocket/events`` (`ZMQ_POLLIN`/`ZMQ_POLLOUT`/`ZMQ_POLLERR`).
public struct ZMQPollEvents: OptionSet, Sendable, Hashable {
    /// The libzmq flag bits.
    public let rawValue: Int16
    /// Creates flags from libzmq bits.
    public init(rawValue: Int16) { self.rawValue = rawValue }

    /// A message can be received without blocking (or a raw fd is readable).
    public static let readable = ZMQPollEvents(rawValue: Int16(ZMQ_POLLIN))
    /// A message can be sent without blocking (or a raw fd is writable).
    public static let writable = ZMQPollEvents(rawValue: Int16(ZMQ_POLLOUT))
    /// An error condition on a raw file descriptor.
    public static let error = ZMQPollEvents(rawValue: Int16(ZMQ_POLLERR))
}
