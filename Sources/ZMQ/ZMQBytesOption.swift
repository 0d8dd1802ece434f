import CZMQ

/// A libzmq socket option whose value is bytes or a string rather than an `int`: CURVE keys, the
/// ZAP domain. Used with ``ZMQSocket/setOption(_:_:)-(ZMQBytesOption<Value>,_)`` and
/// ``ZMQSocket/option(_:)-(ZMQBytesOption<Value>)``.
///
/// ```swift
/// try server.setOption(.curveServer, true)
/// try server.setOption(.curveSecretKey, pair.secretKey)
/// try server.setOption(.zapDomain, "rex.control")
/// ```
///
/// Errors never print the value (a secret key must not end up in a log); they name the option.
public struct ZMQBytesOption<Value>: Sendable {
    let name: Int32
    let label: String
    /// The largest value read back (libzmq's own limits are smaller: 255 for a domain).
    let maxBytes: Int
    let encode: @Sendable (Value) -> [UInt8]
    let decode: @Sendable ([UInt8]) -> Value?
}

extension ZMQBytesOption where Value == ZMQCurveKey {
    private static func key(_ name: Int32, _ label: String) -> Self {
        // Read back as 32 raw bytes (asking for 32 bytes makes libzmq return the binary form).
        Self(name: name, label: label, maxBytes: ZMQCurveKey.byteCount, encode: \.bytes, decode: ZMQCurveKey.init(bytes:))
    }
    /// This socket's long-term public key (`ZMQ_CURVE_PUBLICKEY`); a client needs it, a server
    /// derives it from its secret key. Set before bind/connect.
    public static var curvePublicKey: Self { key(ZMQ_CURVE_PUBLICKEY, "curvePublicKey") }
    /// This socket's long-term secret key (`ZMQ_CURVE_SECRETKEY`). Set before bind/connect.
    public static var curveSecretKey: Self { key(ZMQ_CURVE_SECRETKEY, "curveSecretKey") }
    /// A client's expectation of the server's public key (`ZMQ_CURVE_SERVERKEY`): a server with
    /// another key cannot complete the handshake. libzmq copies the socket's options at each
    /// `connect`, so one socket may connect to several servers, setting each one's key first.
    public static var curveServerKey: Self { key(ZMQ_CURVE_SERVERKEY, "curveServerKey") }
}

extension ZMQBytesOption where Value == String {
    /// The ZAP domain (`ZMQ_ZAP_DOMAIN`, at most 255 bytes), passed to the ZAP handler with each
    /// handshake so one handler can apply different rules per socket. Set before bind.
    public static var zapDomain: Self {
        Self(
            name: ZMQ_ZAP_DOMAIN, label: "zapDomain", maxBytes: 255, encode: { Array($0.utf8) },
            decode: { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
    }
}

extension ZMQBytesOption where Value == [UInt8] {
    /// The routing id the next `connect` of a ROUTER gives that connection's peer
    /// (`ZMQ_CONNECT_ROUTING_ID`, 1–255 bytes, not starting with a zero byte): messages for that
    /// peer are then addressed by a name the owner chose rather than one libzmq made up. Used
    /// once per connect; set it again before the next one.
    public static var connectRoutingID: Self {
        Self(name: ZMQ_CONNECT_ROUTING_ID, label: "connectRoutingID", maxBytes: 255, encode: { $0 }, decode: { $0 })
    }
}

extension ZMQSocketOption where Value == Bool {
    /// Act as a CURVE server (`ZMQ_CURVE_SERVER`): every peer must complete a CURVE handshake
    /// against this socket's secret key. Set before bind.
    public static var curveServer: Self {
        Self(ZMQ_CURVE_SERVER, "curveServer", encode: { $0 ? 1 : 0 }, decode: { $0 != 0 })
    }
}

extension ZMQSocketOption where Value == Duration {
    /// How long a new connection may take to finish its ZMTP (and CURVE) handshake before libzmq
    /// drops it (`ZMQ_HANDSHAKE_IVL`, default 30 s; zero = no limit).
    public static var handshakeInterval: Self {
        Self(ZMQ_HANDSHAKE_IVL, "handshakeInterval", encode: ZMQMilliseconds.from, decode: { .milliseconds($0) })
    }
}

/// The security mechanism a socket speaks (`ZMQ_MECHANISM`).
public enum ZMQMechanism: Sendable, Hashable {
    case null, plain, curve, gssapi, other(Int32)
}

extension ZMQSocketOption where Value == ZMQMechanism {
    /// The socket's security mechanism (read-only).
    public static var mechanism: Self {
        Self(
            ZMQ_MECHANISM, "mechanism", encode: { _ in 0 },
            decode: { raw in
                switch raw {
                case ZMQ_NULL: return .null
                case ZMQ_PLAIN: return .plain
                case ZMQ_CURVE: return .curve
                case ZMQ_GSSAPI: return .gssapi
                default: return .other(raw)
                }
            })
    }
}

extension ZMQSocket {
    /// Sets a bytes or string option; see ``ZMQBytesOption``. The value is not printed in errors.
    public func setOption<Value>(_ option: ZMQBytesOption<Value>, _ value: Value) throws(ZMQError) {
        let handle = try liveHandle("set \(option.label)")
        var bytes = option.encode(value)
        defer { for index in bytes.indices { bytes[index] = 0 } }
        _ = try ZMQCall.check("zmq_setsockopt", operation: "set \(option.label) on \(kind) socket") {
            bytes.withUnsafeBytes { zmq_setsockopt(handle, option.name, $0.baseAddress, $0.count) }
        }
    }

    /// Reads a bytes or string option; nil when libzmq's value does not read as one (an unset key).
    public func option<Value>(_ option: ZMQBytesOption<Value>) throws(ZMQError) -> Value? {
        let handle = try liveHandle("get \(option.label)")
        var buffer = [UInt8](repeating: 0, count: option.maxBytes)
        var size = buffer.count
        _ = try ZMQCall.check("zmq_getsockopt", operation: "get \(option.label) on \(kind) socket") {
            buffer.withUnsafeMutableBytes { zmq_getsockopt(handle, option.name, $0.baseAddress, &size) }
        }
        return option.decode(Array(buffer.prefix(min(size, buffer.count))))
    }

    /// Makes this socket a CURVE server with `keyPair` whose handshakes the ZAP handler of its
    /// context (see ``ZMQZapHandler``) decides under `zapDomain`. Call before bind.
    public func makeCurveServer(_ keyPair: ZMQCurveKeyPair, zapDomain: String) throws(ZMQError) {
        try setOption(.curveServer, true)
        try setOption(.curveSecretKey, keyPair.secretKey)
        try setOption(.zapDomain, zapDomain)
    }

    /// Makes this socket a CURVE client authenticating as `keyPair`, expecting `serverKey` from
    /// the next server it connects to. Call before connect (again with each server's key).
    public func makeCurveClient(_ keyPair: ZMQCurveKeyPair, serverKey: ZMQCurveKey) throws(ZMQError) {
        try setOption(.curvePublicKey, keyPair.publicKey)
        try setOption(.curveSecretKey, keyPair.secretKey)
        try setOption(.curveServerKey, serverKey)
    }
}
