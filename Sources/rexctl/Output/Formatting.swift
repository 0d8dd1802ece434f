/// Small text helpers shared by the table renderers.
enum Formatting {
    /// A millisecond count as `850ms`, `3.9s`, `2m5s`; `-` when absent.
    static func milliseconds(_ value: JSONValue?) -> String {
        guard let value, let double = value.doubleValue else { return "-" }
        return DurationParser.formatMilliseconds(Int64(double.rounded()))
    }

    /// A value as a table cell: strings bare, `-` for null or absent.
    static func cell(_ value: JSONValue?) -> String {
        guard let value, !value.isNull else { return "-" }
        return value.displayText
    }

    /// Seconds with millisecond precision, e.g. `1.150s` (history timestamps).
    static func preciseSeconds(_ value: JSONValue?) -> String {
        guard let value, let milliseconds = value.doubleValue else { return "-" }
        let whole = Int64(milliseconds.rounded())
        let fraction = String(whole % 1_000)
        return "\(whole / 1_000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)s"
    }

    /// A rate with one decimal, e.g. `99.8/s`.
    static func rate(_ perSecond: Double) -> String {
        let tenths = (perSecond * 10).rounded()
        return "\(Int64(tenths) / 10).\(Int64(tenths) % 10)/s"
    }

    /// A non-negative number with three decimals, e.g. `10.021`.
    static func threeDecimals(_ value: Double) -> String {
        let thousandths = Int64((max(0, value) * 1_000).rounded())
        let fraction = String(thousandths % 1_000)
        return "\(thousandths / 1_000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }
}
