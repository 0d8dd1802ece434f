import RexCluster

extension Duration {
    /// Milliseconds with at most three decimals (a microsecond), as documents carry durations.
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        let exact = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        return (exact * 1000).rounded() / 1000
    }

    /// Whole milliseconds, rounded toward zero, as documents carry instants.
    var wholeMilliseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }
}
