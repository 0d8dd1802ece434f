/// The frames the actor system exchanges over a transport, and their binary form.
///
/// Every frame starts with a version byte (1) and a kind byte; integers are big-endian:
///
/// | kind | body |
/// |---|---|
/// | 1 call, 2 one-way call | call id u64, actor number u64, target name (u8 length + UTF-8), argument count u8, per argument u32 length + bytes |
/// | 3 reply value | call id u64, the encoded value (rest of the frame) |
/// | 4 reply void | call id u64 |
/// | 5 reply error | call id u64, code (u8 length), message (u16 length), error type (u16 length, 0 = none) |
/// | 6 check-in, 7 check-out | reception key (u8 length + UTF-8), actor number u64 |
///
/// Decoding never traps and never allocates more than the frame holds: every length is checked
/// against the bytes left, and anything else is ``Malformed``.
enum ActorFrame: Equatable, Sendable {
    case call(Call)
    case replyValue(callID: UInt64, value: ArraySlice<UInt8>)
    case replyVoid(callID: UInt64)
    case replyError(callID: UInt64, ActorCallError)
    case checkIn(key: String, actor: UInt64)
    case checkOut(key: String, actor: UInt64)

    /// A call's header and its arguments (slices of the received frame).
    struct Call: Equatable, Sendable {
        var callID: UInt64
        var actor: UInt64
        var target: String
        var oneWay: Bool
        var arguments: [ArraySlice<UInt8>]
    }

    /// A frame that does not parse: what was wrong, for the counters and logs.
    struct Malformed: Error, Equatable {
        let reason: String
    }

    static let version: UInt8 = 1

    enum Kind: UInt8 {
        case call = 1, oneWayCall, replyValue, replyVoid, replyError, checkIn, checkOut
    }

    /// The longest target name or reception key.
    static let maxNameBytes = 255
    /// The longest error message carried (longer ones are cut on a character boundary).
    static let maxMessageBytes = 1024

    // MARK: encoding

    /// A call frame: header, then the arguments the invocation encoder already framed.
    static func encodeCall(callID: UInt64, actor: UInt64, target: String, oneWay: Bool, arguments: ArgumentList) -> [UInt8] {
        var frame: [UInt8] = []
        frame.reserveCapacity(20 + target.utf8.count + arguments.bytes.count)
        frame.append(version)
        frame.append(oneWay ? Kind.oneWayCall.rawValue : Kind.call.rawValue)
        appendU64(callID, to: &frame)
        appendU64(actor, to: &frame)
        frame.append(UInt8(truncatingIfNeeded: target.utf8.count))
        frame.append(contentsOf: target.utf8)
        frame.append(UInt8(truncatingIfNeeded: arguments.count))
        frame.append(contentsOf: arguments.bytes)
        return frame
    }

    /// A reply carrying an encoded value.
    static func encodeReplyValue(callID: UInt64, value: [UInt8]) -> [UInt8] {
        var frame: [UInt8] = [version, Kind.replyValue.rawValue]
        frame.reserveCapacity(10 + value.count)
        appendU64(callID, to: &frame)
        frame.append(contentsOf: value)
        return frame
    }

    /// A reply to a call of a `Void` function that returned.
    static func encodeReplyVoid(callID: UInt64) -> [UInt8] {
        var frame: [UInt8] = [version, Kind.replyVoid.rawValue]
        appendU64(callID, to: &frame)
        return frame
    }

    /// A reply carrying an error (message and type cut to their wire bounds).
    static func encodeReplyError(callID: UInt64, _ error: ActorCallError) -> [UInt8] {
        var frame: [UInt8] = [version, Kind.replyError.rawValue]
        appendU64(callID, to: &frame)
        let code = Array(bounded(error.code.rawValue, to: 255).utf8)
        frame.append(UInt8(code.count))
        frame.append(contentsOf: code)
        let message = Array(bounded(error.message, to: maxMessageBytes).utf8)
        appendU16(UInt16(message.count), to: &frame)
        frame.append(contentsOf: message)
        let type = Array(bounded(error.errorType ?? "", to: maxMessageBytes).utf8)
        appendU16(UInt16(type.count), to: &frame)
        frame.append(contentsOf: type)
        return frame
    }

    /// A receptionist check-in or check-out of a local actor.
    static func encodeReception(checkIn: Bool, key: String, actor: UInt64) -> [UInt8] {
        var frame: [UInt8] = [version, checkIn ? Kind.checkIn.rawValue : Kind.checkOut.rawValue]
        let name = Array(bounded(key, to: maxNameBytes).utf8)
        frame.append(UInt8(name.count))
        frame.append(contentsOf: name)
        appendU64(actor, to: &frame)
        return frame
    }

    // MARK: decoding

    /// Parses `frame`; the slices of the result share its storage.
    static func decode(_ frame: [UInt8]) throws(Malformed) -> ActorFrame {
        var reader = FrameReader(frame)
        guard try reader.u8() == version else { throw Malformed(reason: "unknown version") }
        guard let kind = Kind(rawValue: try reader.u8()) else { throw Malformed(reason: "unknown kind") }
        let result: ActorFrame
        switch kind {
        case .call, .oneWayCall:
            let callID = try reader.u64()
            let actor = try reader.u64()
            let target = try reader.string(count: Int(try reader.u8()))
            let count = Int(try reader.u8())
            var arguments: [ArraySlice<UInt8>] = []
            arguments.reserveCapacity(count)
            for _ in 0..<count {
                arguments.append(try reader.bytes(count: Int(try reader.u32())))
            }
            result = .call(Call(callID: callID, actor: actor, target: target, oneWay: kind == .oneWayCall, arguments: arguments))
        case .replyValue:
            let callID = try reader.u64()
            result = .replyValue(callID: callID, value: reader.rest())
        case .replyVoid:
            result = .replyVoid(callID: try reader.u64())
        case .replyError:
            let callID = try reader.u64()
            let code = try reader.string(count: Int(try reader.u8()))
            let message = try reader.string(count: Int(try reader.u16()))
            let typeLength = Int(try reader.u16())
            let type = typeLength == 0 ? nil : try reader.string(count: typeLength)
            result = .replyError(callID: callID, ActorCallError(.init(rawValue: code), message, errorType: type))
        case .checkIn, .checkOut:
            let key = try reader.string(count: Int(try reader.u8()))
            let actor = try reader.u64()
            result = kind == .checkIn ? .checkIn(key: key, actor: actor) : .checkOut(key: key, actor: actor)
        }
        guard reader.isAtEnd else { throw Malformed(reason: "trailing bytes") }
        return result
    }

    // MARK: helpers

    static func appendU16(_ value: UInt16, to frame: inout [UInt8]) {
        frame.append(UInt8(truncatingIfNeeded: value >> 8))
        frame.append(UInt8(truncatingIfNeeded: value))
    }

    static func appendU32(_ value: UInt32, to frame: inout [UInt8]) {
        for shift in stride(from: 24, through: 0, by: -8) { frame.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    static func appendU64(_ value: UInt64, to frame: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    /// `text` cut to at most `limit` UTF-8 bytes, on a character boundary.
    static func bounded(_ text: String, to limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        var result = ""
        for character in text {
            if result.utf8.count + character.utf8.count > limit { break }
            result.append(character)
        }
        return result
    }
}

/// A bounds-checked reader over a received frame.
struct FrameReader {
    private let frame: [UInt8]
    private var index: Int

    init(_ frame: [UInt8]) {
        self.frame = frame
        self.index = frame.startIndex
    }

    var isAtEnd: Bool { index == frame.endIndex }

    mutating func u8() throws(ActorFrame.Malformed) -> UInt8 {
        guard index < frame.endIndex else { throw ActorFrame.Malformed(reason: "truncated") }
        defer { index += 1 }
        return frame[index]
    }

    mutating func u16() throws(ActorFrame.Malformed) -> UInt16 {
        UInt16(try u8()) << 8 | UInt16(try u8())
    }

    mutating func u32() throws(ActorFrame.Malformed) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 { value = value << 8 | UInt32(try u8()) }
        return value
    }

    mutating func u64() throws(ActorFrame.Malformed) -> UInt64 {
        var value: UInt64 = 0
        for _ in 0..<8 { value = value << 8 | UInt64(try u8()) }
        return value
    }

    /// The next `count` bytes; `count` is checked against what is left before anything is sliced.
    mutating func bytes(count: Int) throws(ActorFrame.Malformed) -> ArraySlice<UInt8> {
        guard count >= 0, count <= frame.endIndex - index else { throw ActorFrame.Malformed(reason: "length past the end") }
        defer { index += count }
        return frame[index..<(index + count)]
    }

    mutating func string(count: Int) throws(ActorFrame.Malformed) -> String {
        String(decoding: try bytes(count: count), as: UTF8.self)
    }

    mutating func rest() -> ArraySlice<UInt8> {
        defer { index = frame.endIndex }
        return frame[index...]
    }
}
