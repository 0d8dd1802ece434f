/// Median and range of repeated measurements.
struct Sample {
    let values: [Double]

    init(_ values: [Double]) {
        precondition(!values.isEmpty)
        self.values = values.sorted()
    }

    var median: Double {
        let n = values.count
        return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2
    }

    var min: Double { values.first! }
    var max: Double { values.last! }
}

extension Duration {
    /// This duration in seconds, as a `Double`.
    var seconds: Double {
        let (s, attoseconds) = components
        return Double(s) + Double(attoseconds) * 1e-18
    }
}

/// Times `body` on the continuous clock.
func measure<T>(_ body: () throws -> T) rethrows -> (result: T, elapsed: Duration) {
    let clock = ContinuousClock()
    let start = clock.now
    let result = try body()
    return (result, clock.now - start)
}
