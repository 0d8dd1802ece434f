/// The only source of randomness of a ``Membership``: SplitMix64 from a seed, so a run is
/// reproducible from its seed (tests and the simulation rely on it). Not for cryptography.
public struct MembershipRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose whole sequence follows from `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniformly random index below `count` (which must be positive).
    public mutating func index(below count: Int) -> Int { Int(next() % UInt64(count)) }

    /// True with probability `probability` (0...1).
    public mutating func chance(_ probability: Double) -> Bool {
        Double(next() >> 11) * 0x1.0p-53 < probability
    }
}
