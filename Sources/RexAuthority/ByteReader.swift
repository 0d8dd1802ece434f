/// Reads a byte string front to back, every read checked against what is left: a short input
/// is a ``StatementFormatError/Code/truncated`` error, never a trap.
struct ByteReader {
    private let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var remaining: Int { bytes.count - offset }

    mutating func byte(_ field: String) throws(StatementFormatError) -> UInt8 {
        try take(1, field)[0]
    }

    mutating func take(_ count: Int, _ field: String) throws(StatementFormatError) -> [UInt8] {
        guard count >= 0, count <= remaining else {
            throw StatementFormatError(.truncated, "the bytes end inside the \(field) (\(remaining) left, \(count) needed)")
        }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    mutating func uint64(_ field: String) throws(StatementFormatError) -> UInt64 {
        try take(8, field).reduce(0) { $0 << 8 | UInt64($1) }
    }
}
