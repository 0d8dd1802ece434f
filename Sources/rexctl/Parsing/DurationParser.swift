/// Reads and writes the durations operators type: `500ms`, `2s`, `1.5s`, `1m`, `1h`.
enum DurationParser {
    /// Parses `<number><unit>` with unit `ms`, `s`, `m` or `h`; the number may have a fraction.
    ///
    /// - Returns: nil when the text is not such a duration or is not positive.
    static func parse(_ text: String) -> Duration? {
        let units: [(suffix: String, milliseconds: Double)] = [("ms", 1), ("s", 1_000), ("m", 60_000), ("h", 3_600_000)]
        for unit in units where text.hasSuffix(unit.suffix) {
            let number = text.dropLast(unit.suffix.count)
            // Plain decimal digits only: no sign, no exponent, no "inf".
            guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
                number.filter({ $0 == "." }).count <= 1, number.first != ".", number.last != ".",
                let value = Double(number)
            else { continue }
            let milliseconds = value * unit.milliseconds
            // Below 1e12 ms (about 31 years) the microseconds fit an Int64 exactly.
            guard milliseconds > 0, milliseconds < 1e12 else { return nil }
            return .microseconds(Int64((milliseconds * 1_000).rounded()))
        }
        return nil
    }

    /// The shortest of `250ms`, `2s`, `1.5s`, `1m`, `1m30s`, `1h`, for messages and help.
    ///
    /// Integer arithmetic only, saturating at `Int64.max` milliseconds, so no duration traps.
    static func format(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        // Rounded to the nearest millisecond (attoseconds share the sign of seconds).
        let fraction =
            (attoseconds + (attoseconds < 0 ? -500_000_000_000_000 : 500_000_000_000_000))
            / 1_000_000_000_000_000
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000)
        let (milliseconds, carry) = whole.addingReportingOverflow(fraction)
        guard !overflow, !carry else { return formatMilliseconds(seconds < 0 ? .min : .max) }
        return formatMilliseconds(milliseconds)
    }

    /// Formats whole milliseconds like ``format(_:)``.
    static func formatMilliseconds(_ milliseconds: Int64) -> String {
        if milliseconds < 1_000 { return "\(milliseconds)ms" }
        if milliseconds < 60_000 {
            if milliseconds % 1_000 == 0 { return "\(milliseconds / 1_000)s" }
            let tenths = (milliseconds + 50) / 100
            return tenths % 10 == 0 ? "\(tenths / 10)s" : "\(tenths / 10).\(tenths % 10)s"
        }
        let seconds = milliseconds / 1_000
        if seconds < 3_600 {
            let (minutes, rest) = seconds.quotientAndRemainder(dividingBy: 60)
            return rest == 0 ? "\(minutes)m" : "\(minutes)m\(rest)s"
        }
        let (hours, restMinutes) = (seconds / 60).quotientAndRemainder(dividingBy: 60)
        return restMinutes == 0 ? "\(hours)h" : "\(hours)h\(restMinutes)m"
    }
}

extension Duration {
    /// The duration in (fractional) seconds.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
