import RexCluster

/// CRC-32 (IEEE 802.3, the zlib polynomial), for the records the node writes to its journal:
/// SQLite checks the pages of its log but not a row whose bytes rot in the database file.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func checksum(_ bytes: [UInt8], seed: UInt32 = 0) -> UInt32 {
        var crc = ~seed
        table.withUnsafeBufferPointer { table in
            for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xff)] ^ (crc >> 8) }
        }
        return ~crc
    }
}
