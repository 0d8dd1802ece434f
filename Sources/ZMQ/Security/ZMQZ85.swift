import CZMQ

/// Z85, ZeroMQ's text encoding of binary keys (RFC 32/Z85): 4 bytes become 5 printable
/// characters, so a 32-byte CURVE key is 40 characters that survive JSON, shells and files.
///
/// ```swift
/// let text = ZMQZ85.encode(key)          // "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7"
/// let bytes = ZMQZ85.decode(text)        // [UInt8]? (nil: not Z85)
/// ```
public enum ZMQZ85 {
    /// The 85 characters Z85 uses, in digit order.
    public static let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#".utf8)
    private static let digits: Set<UInt8> = Set(alphabet)

    /// The largest input either direction takes (keys are 32 bytes; nothing here needs more).
    public static let maxBytes = 4096

    /// The Z85 text of `bytes`; nil when the count is not a multiple of 4 or over ``maxBytes``.
    public static func encode(_ bytes: [UInt8]) -> String? {
        guard bytes.count % 4 == 0, bytes.count <= maxBytes else { return nil }
        var text = [CChar](repeating: 0, count: bytes.count / 4 * 5 + 1)
        let encoded = bytes.withUnsafeBufferPointer { input in
            text.withUnsafeMutableBufferPointer { zmq_z85_encode($0.baseAddress, input.baseAddress, input.count) }
        }
        guard encoded != nil else { return nil }
        return String(decoding: text.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The bytes of Z85 `text`; nil when its length is not a multiple of 5, it is longer than
    /// ``maxBytes`` characters, or it has a character outside ``alphabet``.
    ///
    /// The characters are checked here first: libzmq's decoder indexes a table by character and
    /// only rejects some invalid ones.
    public static func decode(_ text: String) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count % 5 == 0, characters.count <= maxBytes, characters.allSatisfy(digits.contains) else {
            return nil
        }
        var bytes = [UInt8](repeating: 0, count: characters.count / 5 * 4)
        let cString = characters.map { CChar(bitPattern: $0) } + [0]
        let decoded = cString.withUnsafeBufferPointer { input in
            bytes.withUnsafeMutableBufferPointer { zmq_z85_decode($0.baseAddress, input.baseAddress) }
        }
        return decoded == nil ? nil : bytes
    }
}
