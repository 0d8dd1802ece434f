import Foundation

/// How one argument or result value is encoded: a tag byte, then the value.
///
/// Byte arrays, `Data`, strings, integers, booleans and doubles have a compact binary form (tags
/// 1–7) that needs no encoder object; any other `Codable` value is JSON (tag 0). Decoding checks
/// that the tag is the one the receiving type expects, so a signature that differs between caller
/// and callee fails as ``ActorCallError/Code-swift.struct/decodingFailed``, never as a wrong value.
enum ArgumentCodec {
    enum Tag: UInt8 {
        case json = 0, bytes, data, string, int, uint, bool, double
    }

    /// Encodes `value`; throws ``ActorCallError/Code-swift.struct/argumentTooLarge`` past `limit` bytes.
    static func encode<Value: Encodable>(_ value: Value, limit: Int) throws(ActorCallError) -> [UInt8] {
        var out: [UInt8]
        if Value.self == [UInt8].self {
            let bytes = unsafeBitCast(value, to: [UInt8].self)
            try check(bytes.count, limit)
            out = [Tag.bytes.rawValue]
            out.append(contentsOf: bytes)
        } else if Value.self == Data.self {
            let data = unsafeBitCast(value, to: Data.self)
            try check(data.count, limit)
            out = [Tag.data.rawValue]
            out.append(contentsOf: data)
        } else if Value.self == String.self {
            let text = unsafeBitCast(value, to: String.self)
            try check(text.utf8.count, limit)
            out = [Tag.string.rawValue]
            out.append(contentsOf: text.utf8)
        } else if Value.self == Int.self {
            out = [Tag.int.rawValue]
            ActorFrame.appendU64(UInt64(bitPattern: Int64(unsafeBitCast(value, to: Int.self))), to: &out)
        } else if Value.self == UInt64.self {
            out = [Tag.uint.rawValue]
            ActorFrame.appendU64(unsafeBitCast(value, to: UInt64.self), to: &out)
        } else if Value.self == Bool.self {
            out = [Tag.bool.rawValue, unsafeBitCast(value, to: Bool.self) ? 1 : 0]
        } else if Value.self == Double.self {
            out = [Tag.double.rawValue]
            ActorFrame.appendU64(unsafeBitCast(value, to: Double.self).bitPattern, to: &out)
        } else {
            let json: Data
            do { json = try JSONEncoder().encode(value) } catch {
                throw ActorCallError(.argumentTooLarge, "cannot encode \(Value.self): \(error)")
            }
            try check(json.count, limit)
            out = [Tag.json.rawValue]
            out.append(contentsOf: json)
        }
        return out
    }

    /// Decodes a value of `Value` from `bytes` (tag first).
    static func decode<Value: Decodable>(_ type: Value.Type, from bytes: ArraySlice<UInt8>) throws(ActorCallError) -> Value {
        guard let first = bytes.first, let tag = Tag(rawValue: first) else {
            throw ActorCallError(.decodingFailed, "unknown value tag for \(Value.self)")
        }
        let body = bytes.dropFirst()
        func expect(_ expected: Tag) throws(ActorCallError) {
            guard tag == expected else {
                throw ActorCallError(.decodingFailed, "expected \(Value.self), got a value tagged \(tag)")
            }
        }
        if Value.self == [UInt8].self {
            try expect(.bytes)
            return unsafeBitCast(Array(body), to: Value.self)
        } else if Value.self == Data.self {
            try expect(.data)
            return unsafeBitCast(Data(body), to: Value.self)
        } else if Value.self == String.self {
            try expect(.string)
            return unsafeBitCast(String(decoding: body, as: UTF8.self), to: Value.self)
        } else if Value.self == Int.self {
            try expect(.int)
            return unsafeBitCast(Int(truncatingIfNeeded: Int64(bitPattern: try word(body))), to: Value.self)
        } else if Value.self == UInt64.self {
            try expect(.uint)
            return unsafeBitCast(try word(body), to: Value.self)
        } else if Value.self == Bool.self {
            try expect(.bool)
            guard body.count == 1, let byte = body.first, byte <= 1 else {
                throw ActorCallError(.decodingFailed, "a Bool is one byte, 0 or 1")
            }
            return unsafeBitCast(byte == 1, to: Value.self)
        } else if Value.self == Double.self {
            try expect(.double)
            return unsafeBitCast(Double(bitPattern: try word(body)), to: Value.self)
        }
        try expect(.json)
        do {
            return try JSONDecoder().decode(Value.self, from: Data(body))
        } catch {
            throw ActorCallError(.decodingFailed, "cannot decode \(Value.self): \(error)")
        }
    }

    private static func check(_ count: Int, _ limit: Int) throws(ActorCallError) {
        guard count <= limit else {
            throw ActorCallError(.argumentTooLarge, "a value of \(count) bytes is over the \(limit)-byte limit")
        }
    }

    private static func word(_ body: ArraySlice<UInt8>) throws(ActorCallError) -> UInt64 {
        guard body.count == 8 else { throw ActorCallError(.decodingFailed, "an 8-byte word has \(body.count) bytes") }
        return body.reduce(0) { $0 << 8 | UInt64($1) }
    }
}

/// The arguments of one call, already framed (u32 length + encoded value each).
struct ArgumentList: Sendable {
    var bytes: [UInt8] = []
    var count = 0
}
