import CZMQ

/// A typed libzmq socket option, used with ``ZMQSocket/setOption(_:_:)`` and ``ZMQSocket/option(_:)``.
///
/// Set options **before** `bind`/`connect`: a tcp/ipc listener keeps the options it saw at
/// bind time (an HWM of 0 set after bind did not reach later subscribers, measured).
///
/// ```swift
/// try pub.setOption(.sendHighWaterMark, 0)        // unlimited: never drop, memory grows
/// try sub.setOption(.receiveTimeout, .milliseconds(500))
/// try sub.setOption(.heartbeatInterval, .seconds(1))
/// let hwm = try pub.option(.sendHighWaterMark)   // Int
/// ```
public struct ZMQSocketOption<Value>: Sendable {
    let name: Int32
    let label: String
    /// libzmq's C type for the option: `int` for most, `int64_t` for a few (`ZMQ_MAXMSGSIZE`).
    let isInt64: Bool
    let encode: @Sendable (Value) -> Int64
    let decode: @Sendable (Int64) -> Value

    /// An `int` option: values are clamped to `Int32` on the way in.
    init(
        _ name: Int32, _ label: String, encode: @escaping @Sendable (Value) -> Int32,
        decode: @escaping @Sendable (Int32) -> Value
    ) {
        self.name = name
        self.label = label
        self.isInt64 = false
        self.encode = { Int64(encode($0)) }
        self.decode = { decode(Int32(truncatingIfNeeded: $0)) }
    }

    /// An `int64_t` option.
    init(
        int64 name: Int32, _ label: String, encode: @escaping @Sendable (Value) -> Int64,
        decode: @escaping @Sendable (Int64) -> Value
    ) {
        self.name = name
        self.label = label
        self.isInt64 = true
        self.encode = encode
        self.decode = decode
    }
}

extension ZMQSocketOption where Value == Int {
    private static func int(_ name: Int32, _ label: String) -> Self {
        Self(name, label, encode: { Int32(clamping: $0) }, decode: { Int($0) })
    }
    /// Outgoing queue limit per peer in messages (`ZMQ_SNDHWM`, default 1000, 0 = unlimited).
    /// A PUB drops silently at the limit. SUB/XSUB sockets are created with 0.
    public static var sendHighWaterMark: Self { int(ZMQ_SNDHWM, "sendHighWaterMark") }
    /// Incoming queue limit per peer in messages (`ZMQ_RCVHWM`, default 1000, 0 = unlimited).
    public static var receiveHighWaterMark: Self { int(ZMQ_RCVHWM, "receiveHighWaterMark") }
    /// Listen backlog for bound tcp/ipc sockets (`ZMQ_BACKLOG`, default 100); set before bind.
    public static var backlog: Self { int(ZMQ_BACKLOG, "backlog") }
}

extension ZMQSocketOption where Value == Int? {
    /// The largest inbound frame in bytes (`ZMQ_MAXMSGSIZE`, an `int64_t`); nil = no limit (the
    /// default). libzmq checks each frame's announced size before allocating it and drops the
    /// connection of a peer that exceeds it, so an oversized frame costs nothing but that peer.
    /// Set before bind/connect.
    public static var maxMessageSize: Self {
        Self(
            int64: ZMQ_MAXMSGSIZE, "maxMessageSize",
            encode: { $0.map { Int64(clamping: max($0, 0)) } ?? -1 },
            decode: { $0 < 0 ? nil : Int(clamping: $0) })
    }
}

extension ZMQSocketOption where Value == Bool {
    private static func bool(_ name: Int32, _ label: String) -> Self {
        Self(name, label, encode: { $0 ? 1 : 0 }, decode: { $0 != 0 })
    }
    /// Queue messages only to completed connections (`ZMQ_IMMEDIATE`).
    public static var immediate: Self { bool(ZMQ_IMMEDIATE, "immediate") }
    /// ROUTER: fail with ``ZMQError/Code/hostUnreachable`` instead of dropping unroutable
    /// messages (`ZMQ_ROUTER_MANDATORY`). Write-only in libzmq.
    public static var routerMandatory: Self { bool(ZMQ_ROUTER_MANDATORY, "routerMandatory") }
    /// XPUB: pass every subscription frame up, not only the first per topic
    /// (`ZMQ_XPUB_VERBOSE`). Write-only in libzmq.
    public static var xpubVerbose: Self { bool(ZMQ_XPUB_VERBOSE, "xpubVerbose") }
}

extension ZMQSocketOption where Value == Bool? {
    /// TCP keepalive (`ZMQ_TCP_KEEPALIVE`): nil = the OS default, true = on, false = off.
    public static var tcpKeepalive: Self {
        Self(
            ZMQ_TCP_KEEPALIVE, "tcpKeepalive",
            encode: { $0.map { $0 ? 1 : 0 } ?? -1 },
            decode: { $0 < 0 ? nil : $0 != 0 })
    }
}

extension ZMQSocketOption where Value == Duration? {
    private static func timeout(_ name: Int32, _ label: String) -> Self {
        Self(
            name, label,
            encode: { $0.map(ZMQMilliseconds.from) ?? -1 },
            decode: { $0 < 0 ? nil : .milliseconds($0) })
    }
    /// How long `close` keeps unsent messages (`ZMQ_LINGER`); nil = forever. Sockets start at zero.
    public static var linger: Self { timeout(ZMQ_LINGER, "linger") }
    /// Maximum wait of a blocking receive before ``ZMQError/Code/wouldBlock`` (`ZMQ_RCVTIMEO`);
    /// nil = wait forever (the default).
    public static var receiveTimeout: Self { timeout(ZMQ_RCVTIMEO, "receiveTimeout") }
    /// Maximum wait of a blocking send before ``ZMQError/Code/wouldBlock`` (`ZMQ_SNDTIMEO`);
    /// nil = wait forever (the default).
    public static var sendTimeout: Self { timeout(ZMQ_SNDTIMEO, "sendTimeout") }
}

extension ZMQSocketOption where Value == Duration {
    private static func interval(_ name: Int32, _ label: String) -> Self {
        Self(name, label, encode: ZMQMilliseconds.from, decode: { .milliseconds($0) })
    }
    /// Pause before reconnecting a lost or refused connection (`ZMQ_RECONNECT_IVL`, default 100 ms).
    public static var reconnectInterval: Self { interval(ZMQ_RECONNECT_IVL, "reconnectInterval") }
    /// Upper bound of exponential reconnect backoff (`ZMQ_RECONNECT_IVL_MAX`, zero = no backoff).
    public static var reconnectIntervalMax: Self { interval(ZMQ_RECONNECT_IVL_MAX, "reconnectIntervalMax") }
    /// Send a ZMTP PING this often (`ZMQ_HEARTBEAT_IVL`, zero = off).
    public static var heartbeatInterval: Self { interval(ZMQ_HEARTBEAT_IVL, "heartbeatInterval") }
    /// Drop the connection when no traffic arrives this long after a PING (`ZMQ_HEARTBEAT_TIMEOUT`).
    public static var heartbeatTimeout: Self { interval(ZMQ_HEARTBEAT_TIMEOUT, "heartbeatTimeout") }
    /// Ask the peer to time us out after this long (`ZMQ_HEARTBEAT_TTL`, decisecond resolution).
    public static var heartbeatTTL: Self { interval(ZMQ_HEARTBEAT_TTL, "heartbeatTTL") }
}

/// Duration ↔ libzmq's `int` milliseconds.
enum ZMQMilliseconds {
    /// Whole milliseconds, rounded up so a positive duration never becomes 0 (= "don't wait").
    @Sendable static func from(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        if seconds < 0 || (seconds == 0 && attoseconds <= 0) { return 0 }
        let ms = seconds.multipliedReportingOverflow(by: 1000)
        if ms.overflow { return Int32.max }
        let fraction = (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: ms.partialValue + fraction)
    }
}
