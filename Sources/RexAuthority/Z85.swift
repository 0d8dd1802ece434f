/// Z85 (ZeroMQ RFC 32), in Swift: the text form of the keys the authority handles, the same
/// form as CURVE keys in key files and the cluster file (32 bytes are 40 characters).
///
/// Decoding is strict: a 5-character group whose value does not fit 32 bits is refused, so every
/// text decodes to one byte string and every byte string has one text (a key cannot be written
/// two ways to slip past a revocation of the other).
enum Z85 {
    static let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#".utf8)

    /// Character → digit value, 0xFF for a character outside the alphabet.
    private static let digits: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in alphabet.enumerated() { table[Int(character)] = UInt8(value) }
        return table
    }()

    /// The text of `bytes`; nil when their count is not a multiple of 4.
    static func encode(_ bytes: [UInt8]) -> String? {
        guard bytes.count % 4 == 0 else { return nil }
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count / 4 * 5)
        var index = 0
        while index < bytes.count {
            var value = UInt32(bytes[index]) << 24 | UInt32(bytes[index + 1]) << 16
            value |= UInt32(bytes[index + 2]) << 8 | UInt32(bytes[index + 3])
            var group = [UInt8](repeating: 0, count: 5)
            for position in stride(from: 4, through: 0, by: -1) {
                group[position] = alphabet[Int(value % 85)]
                value /= 85
            }
            text += group
            index += 4
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes of `text`; nil when it is not canonical Z85 (length not a multiple of 5, a
    /// character outside the alphabet, a group over 32 bits).
    static func decode(_ text: String) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count % 5 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(characters.count / 5 * 4)
        var index = 0
        while index < characters.count {
            var value: UInt64 = 0
            for position in index..<index + 5 {
                let digit = digits[Int(characters[position])]
                guard digit != 0xFF else { return nil }
                value = value * 85 + UInt64(digit)
            }
            guard value <= UInt64(UInt32.max) else { return nil }
            bytes += [UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16)]
            bytes += [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
            index += 5
        }
        return bytes
    }
}
