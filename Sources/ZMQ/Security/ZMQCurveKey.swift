import CZMQ

/// A CURVE key (Curve25519, 32 bytes): a public key, or a secret one.
///
/// Its text form is Z85 (40 characters), the form libzmq, the key files and the cluster file
/// use. ``description`` shows a public key's text; a secret key never prints itself.
public struct ZMQCurveKey: Sendable, Hashable, CustomStringConvertible {
    /// The 32 raw bytes.
    public let bytes: [UInt8]

    /// The size of every CURVE key.
    public static let byteCount = 32
    /// The length of a key's Z85 text.
    public static let textCount = 40

    /// A key from its 32 bytes; nil for any other count.
    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = bytes
    }

    /// A key from its 40-character Z85 text; nil when it is not one.
    public init?(z85 text: String) {
        guard text.utf8.count == Self.textCount, let bytes = ZMQZ85.decode(text) else { return nil }
        self.bytes = bytes
    }

    /// The 40-character Z85 text.
    public var z85: String { ZMQZ85.encode(bytes) ?? "" }

    /// The Z85 text (for a public key; do not print a secret one).
    public var description: String { z85 }
}

/// A CURVE key pair: what a server or client socket needs to authenticate itself.
public struct ZMQCurveKeyPair: Sendable, Hashable {
    public let publicKey: ZMQCurveKey
    public let secretKey: ZMQCurveKey

    /// A pair whose public key is derived from `secretKey` (`zmq_curve_public`).
    public init(secretKey: ZMQCurveKey) throws(ZMQError) {
        self.secretKey = secretKey
        self.publicKey = try Self.publicKey(of: secretKey)
    }

    private init(publicKey: ZMQCurveKey, secretKey: ZMQCurveKey) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    /// A fresh random pair (`zmq_curve_keypair`, libsodium's generator).
    ///
    /// - Throws: ``ZMQError/Code/notSupported`` when libzmq was built without CURVE.
    public static func generate() throws(ZMQError) -> ZMQCurveKeyPair {
        var publicText = [CChar](repeating: 0, count: ZMQCurveKey.textCount + 1)
        var secretText = [CChar](repeating: 0, count: ZMQCurveKey.textCount + 1)
        _ = try ZMQCall.check("zmq_curve_keypair", operation: "generate a CURVE key pair") {
            zmq_curve_keypair(&publicText, &secretText)
        }
        defer { for index in secretText.indices { secretText[index] = 0 } }
        guard let publicKey = ZMQCurveKey(z85: Self.text(publicText)), let secretKey = ZMQCurveKey(z85: Self.text(secretText)) else {
            throw ZMQError(code: .other, errno: 0, message: "libzmq returned a key that is not Z85", function: "zmq_curve_keypair")
        }
        return ZMQCurveKeyPair(publicKey: publicKey, secretKey: secretKey)
    }

    /// The public key of `secretKey` (`zmq_curve_public`).
    public static func publicKey(of secretKey: ZMQCurveKey) throws(ZMQError) -> ZMQCurveKey {
        var publicText = [CChar](repeating: 0, count: ZMQCurveKey.textCount + 1)
        let secretText = secretKey.z85.utf8.map { CChar(bitPattern: $0) } + [0]
        _ = try ZMQCall.check("zmq_curve_public", operation: "derive a CURVE public key") {
            zmq_curve_public(&publicText, secretText)
        }
        guard let key = ZMQCurveKey(z85: text(publicText)) else {
            throw ZMQError(code: .other, errno: 0, message: "libzmq returned a key that is not Z85", function: "zmq_curve_public")
        }
        return key
    }

    private static func text(_ characters: [CChar]) -> String {
        String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// What this libzmq was built with.
public enum ZMQCapabilities {
    /// Whether CURVE security is available (`zmq_has("curve")`: Debian's libzmq links libsodium).
    public static var hasCurve: Bool { zmq_has("curve") != 0 }
}
