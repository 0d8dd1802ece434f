/// FNV-1a over 64 bits: the running hash of a run's trace. Fed only values the simulation
/// decides (times on its clock, node numbers, sequence numbers, strings of the workload), never
/// wall time or addresses, so equal runs hash equal on any machine.
struct TraceHash {
    private(set) var value: UInt64 = 0xCBF2_9CE4_8422_2325

    mutating func mix(_ word: UInt64) {
        var word = word
        for _ in 0..<8 {
            value ^= word & 0xFF
            value = value &* 0x0000_0100_0000_01B3
            word >>= 8
        }
    }

    mutating func mix(_ int: Int) { mix(UInt64(bitPattern: Int64(int))) }

    mutating func mix(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        mix(UInt64(bitPattern: seconds))
        mix(UInt64(bitPattern: attoseconds))
    }

    mutating func mix(_ text: String) {
        for byte in text.utf8 {
            value ^= UInt64(byte)
            value = value &* 0x0000_0100_0000_01B3
        }
        mix(UInt64(text.utf8.count))
    }

    /// Sixteen hex digits.
    var hex: String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
