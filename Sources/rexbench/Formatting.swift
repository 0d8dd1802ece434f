import Foundation

/// Number formats used by the tables.
enum Format {
    /// `1234567` → `1.23 M`, with an SI prefix.
    static func rate(_ value: Double) -> String {
        if value >= 1e9 { return String(format: "%.2f G", value / 1e9) }
        if value >= 1e6 { return String(format: "%.2f M", value / 1e6) }
        if value >= 1e3 { return String(format: "%.2f k", value / 1e3) }
        return String(format: "%.2f", value)
    }

    /// A duration in seconds, with a unit picked for readability.
    static func time(_ seconds: Double) -> String {
        if seconds >= 1 { return String(format: "%.2f s", seconds) }
        if seconds >= 1e-3 { return String(format: "%.3f ms", seconds * 1e3) }
        if seconds >= 1e-6 { return String(format: "%.2f µs", seconds * 1e6) }
        return String(format: "%.1f ns", seconds * 1e9)
    }

    static func bytes(_ value: Double) -> String {
        if Swift.abs(value) >= 1_048_576 { return String(format: "%.1f MiB", value / 1_048_576) }
        if Swift.abs(value) >= 1024 { return String(format: "%.2f KiB", value / 1024) }
        return String(format: "%.0f B", value)
    }

    static func count(_ value: Int) -> String {
        let digits = Array(String(value))
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return out
    }

    /// `median (min–max)` of a sample, each through `unit`.
    static func spread(_ sample: Sample, _ unit: (Double) -> String) -> String {
        "\(unit(sample.median))  (\(unit(sample.min)) – \(unit(sample.max)))"
    }
}
