#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
public import RexCluster
#endif

/// The last string decoded from a field of received messages, handed out again while the same
/// bytes keep arriving — a stream of one topic from one sender is the common case — so those
/// bytes are compared rather than validated and decoded into a new string per message.
struct StringReuse {
    private var bytes: [UInt8] = []
    private var string = ""

    /// The string for `raw` (UTF-8; invalid sequences repaired as `String(decoding:)` does).
    mutating func string(for raw: UnsafeRawBufferPointer) -> String {
        if raw.count == bytes.count, bytes.withUnsafeBytes({ Self.same($0, raw) }) { return string }
        bytes = Array(raw)
        string = String(decoding: raw, as: UTF8.self)
        return string
    }

    private static func same(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
        guard let left = lhs.baseAddress, let right = rhs.baseAddress else { return lhs.count == rhs.count }
        return memcmp(left, right, lhs.count) == 0
    }
}
