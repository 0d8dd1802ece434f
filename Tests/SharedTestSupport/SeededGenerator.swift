/// SplitMix64, a tiny generator with a seed, so a failing randomised test replays from its seed
/// on every machine (the system generator cannot be seeded).
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    public var state: UInt64

    public init(state: UInt64) { self.state = state }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `0..<bound` (`bound` > 0), by remainder: cheap, and bias does not matter here.
    public mutating func next(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
