/// Small text helpers shared by the table renderers.
///
/// Their numbers mostly come from node replies, which are hostile input: a value may be
/// `Int.max`, `-1e300` or, computed from others, infinite. No helper converts a `Double` to an
/// integer without ``wholeNumber(_:)``, and a value it cannot show exactly is shown in Swift's
/// notation (`1e+18/s`) instead of trapping.
enum Formatting {
    /// The largest magnitude a `Double` holds with every integer below it exact (2^53 − 1):
    /// the range JSON numbers interoperate in (RFC 8259 §6).
    static let maxExactInteger: Int64 = 9_007_199_254_740_991

    /// `value` rounded to the nearest integer, or nil when it is not finite or beyond
    /// ±``maxExactInteger`` — the one place a `Double` becomes an integer here, so that
    /// conversion can never trap and later arithmetic on the result cannot overflow.
    static func wholeNumber(_ value: Double) -> Int64? {
        let rounded = value.rounded()
        guard rounded.isFinite, abs(rounded) <= Double(maxExactInteger) else { return nil }
        return Int64(rounded)
    }

    /// A whole number of milliseconds as `850ms`, `3.9s`, `2m5s`; `-` when absent.
    static func milliseconds(_ value: Int?) -> String {
        guard let value else { return "-" }
        return DurationParser.formatMilliseconds(Int64(value))
    }

    /// Milliseconds with a fraction (a settle, a computed age), rounded to whole ones: `50ms`;
    /// `-` when absent; Swift's notation (`2e+300ms`) when out of range.
    static func milliseconds(_ value: Double?) -> String {
        guard let value else { return "-" }
        guard let whole = wholeNumber(value) else { return "\(value)ms" }
        return DurationParser.formatMilliseconds(whole)
    }

    /// A value as a table cell: `-` for none.
    static func cell(_ value: String?) -> String { value ?? "-" }

    /// A number as a table cell: `-` for none.
    static func cell(_ value: (some BinaryInteger)?) -> String { value.map { "\($0)" } ?? "-" }

    /// Milliseconds as seconds with millisecond precision, e.g. `1.150s`, `-0.005s` (history timestamps).
    static func preciseSeconds(_ milliseconds: Int) -> String {
        (milliseconds < 0 ? "-" : "") + decimals(UInt64(milliseconds.magnitude), places: 3) + "s"
    }

    /// `value`, or nil beyond ±``maxExactInteger``: node counters are hostile input, and
    /// bounding them to the integers JSON carries exactly means sums and differences of a few
    /// of them cannot overflow an `Int`.
    static func exact(_ value: Int) -> Int? {
        (-maxExactInteger...maxExactInteger).contains(Int64(value)) ? value : nil
    }

    /// `a − b`, or nil when it does not fit an `Int`.
    static func difference(_ a: Int, _ b: Int) -> Int? {
        let (result, overflow) = a.subtractingReportingOverflow(b)
        return overflow ? nil : result
    }

    /// A rate with one decimal, e.g. `99.8/s`.
    static func rate(_ perSecond: Double) -> String {
        guard let tenths = wholeNumber(perSecond * 10) else { return "\(perSecond)/s" }
        return (tenths < 0 ? "-" : "") + decimals(tenths.magnitude, places: 1) + "/s"
    }

    /// A non-negative number with three decimals, e.g. `10.021` (negative values show as `0.000`).
    static func threeDecimals(_ value: Double) -> String {
        guard let thousandths = wholeNumber(max(0, value) * 1_000) else { return "\(value)" }
        return decimals(thousandths.magnitude, places: 3)
    }

    /// A non-negative number with one decimal, e.g. `1998.4` (negative values show as `0.0`).
    static func oneDecimal(_ value: Double) -> String {
        guard let tenths = wholeNumber(max(0, value) * 10) else { return "\(value)" }
        return decimals(tenths.magnitude, places: 1)
    }

    /// `units` of 10^-`places` as a decimal: (1150, 3) → `1.150`.
    private static func decimals(_ units: UInt64, places: Int) -> String {
        var scale: UInt64 = 1
        for _ in 0..<places { scale *= 10 }
        let fraction = String(units % scale)
        return "\(units / scale)." + String(repeating: "0", count: places - fraction.count) + fraction
    }
}
