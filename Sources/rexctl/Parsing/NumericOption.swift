/// Reads the numbers operators type as option values (counts, rates, durations, ports) and
/// checks them against their range while parsing, so a bad value is a usage error (exit 64)
/// before any socket exists.
///
/// Only plain decimal digits are read: no sign, exponent, hex, `inf` or `nan`. Every value that
/// gets through is therefore finite and within its stated bounds, which is what makes the
/// arithmetic on it later (pacing, schedules, conversions to integers) safe.
///
/// ```swift
/// let count = try NumericOption.count("200", option: "--count", range: SendCommand.countRange)   // 200
/// let rate = try NumericOption.rate("100/s", option: "--rate")                                  // 100.0
/// try NumericOption.rate("1e18", option: "--rate")   // UsageError: --rate expects a rate per second from 0.001 …
/// ```
enum NumericOption {
    /// What every rate option accepts, per second: one action every 1000 s up to a million a second.
    static let rateRange: ClosedRange<Double> = 0.001...1_000_000
    /// What every duration option accepts unless it says otherwise.
    static let durationRange: ClosedRange<Duration> = .milliseconds(1)...(.seconds(86_400))
    /// The TCP ports a `tcp://` endpoint may name.
    static let portRange: ClosedRange<Int> = 1...65_535

    /// A whole number within `range`, e.g. `--count 200`.
    ///
    /// - Throws: ``UsageError`` naming the range, for anything but decimal digits in range.
    static func count(_ text: String, option: String, range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard isDigits(text), let value = Int(text), range.contains(value) else {
            throw UsageError(
                "\(option) expects a whole number from \(range.lowerBound) to \(range.upperBound), "
                    + "not '\(text)'")
        }
        return value
    }

    /// A rate per second within `range`, written `100`, `2.5` or `100/s`.
    ///
    /// - Throws: ``UsageError`` naming the range, for anything but a decimal number in range.
    static func rate(
        _ text: String, option: String,
        range: ClosedRange<Double> = rateRange
    ) throws(UsageError) -> Double {
        let number = text.hasSuffix("/s") ? String(text.dropLast(2)) : text
        guard isDecimal(number), let value = Double(number), range.contains(value) else {
            throw UsageError(
                "\(option) expects a rate per second from \(plain(range.lowerBound)) to "
                    + "\(plain(range.upperBound)), such as 100 or 100/s, not '\(text)'")
        }
        return value
    }

    /// A duration within `range`, written as ``DurationParser`` reads it (`500ms`, `2s`, `1.5m`, `1h`).
    ///
    /// - Throws: ``UsageError`` naming the range, for anything else.
    static func duration(
        _ text: String, option: String,
        range: ClosedRange<Duration> = durationRange
    ) throws(UsageError) -> Duration {
        guard let duration = DurationParser.parse(text), range.contains(duration) else {
            throw UsageError(
                "\(option) expects a duration from \(DurationParser.format(range.lowerBound)) to "
                    + "\(DurationParser.format(range.upperBound)), such as 500ms, 2s or 1m, not '\(text)'")
        }
        return duration
    }

    /// Whether a `tcp://host:port` endpoint names a port in ``portRange``; other transports
    /// (`ipc://`, `inproc://`) have no port and pass.
    static func hasValidPort(_ endpoint: String) -> Bool {
        guard endpoint.hasPrefix("tcp://") else { return true }
        let address = endpoint.dropFirst("tcp://".count)
        guard let colon = address.lastIndex(of: ":") else { return false }
        let port = String(address[address.index(after: colon)...])
        return isDigits(port) && Int(port).map(portRange.contains) == true
    }

    // MARK: grammar

    /// One or more ASCII digits.
    private static func isDigits(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// Digits with at most one `.` between them: `2`, `2.5`, `0.001` (not `.5`, `5.`, `1e3`).
    private static func isDecimal(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return (1...2).contains(parts.count) && parts.allSatisfy { isDigits(String($0)) }
    }

    /// A bound as typed: `1000000`, `0.001`.
    private static func plain(_ value: Double) -> String {
        Int(exactly: value).map(String.init) ?? String(value)
    }
}
