import RexFeeds

/// Median and range of repeated measurements.
struct Sample {
    var values: [Double] = []

    var median: Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    var min: Double? { values.min() }
    var max: Double? { values.max() }

    /// `median [min–max]`, or `–` when empty.
    func formatted(_ format: (Double) -> String = grouped) -> String {
        guard let median, let min, let max else { return "–" }
        if values.count == 1 { return format(median) }
        return "\(format(median)) [\(format(min))–\(format(max))]"
    }
}

/// An integer with thousands separators: 1234567 → "1,234,567".
func grouped(_ value: Double) -> String {
    let integer = Int(value.rounded())
    let digits = String(abs(integer))
    var out = ""
    for (index, character) in digits.enumerated() {
        if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
        out.append(character)
    }
    return integer < 0 ? "-" + out : out
}
