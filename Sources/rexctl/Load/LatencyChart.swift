import Foundation

/// A hand-written SVG line chart of reconcile latency against the achieved churn rate.
enum LatencyChart {
    struct Point: Sendable, Equatable {
        /// Achieved topic changes per second (all nodes).
        var rate: Double
        var p50Ms: Double
        var p99Ms: Double
        var meanMs: Double
    }

    static let width = 760.0
    static let height = 460.0
    static let left = 78.0, right = 24.0, top = 48.0, bottom = 78.0

    /// A 1-2-5 step giving about `count` intervals over `span`.
    static func niceStep(_ span: Double, count: Double = 5) -> Double {
        guard span > 0, span.isFinite else { return 1 }
        let raw = span / count
        let magnitude = pow(10, floor(log10(raw)))
        for factor in [1.0, 2.0, 2.5, 5.0, 10.0] where raw <= factor * magnitude { return factor * magnitude }
        return 10 * magnitude
    }

    /// A tick label without trailing zeros: 0, 0.05, 1.5, 2000 (`1e+300` beyond exact integers).
    static func label(_ value: Double) -> String {
        if abs(value - value.rounded()) < 1e-9 {
            return Formatting.wholeNumber(value).map { String($0) } ?? "\(value)"
        }
        var text = String(format: "%.3f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    static func fmt(_ value: Double) -> String { String(format: "%.1f", value) }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }

    /// The largest value plotted on either axis; larger ones (and negative or non-finite ones,
    /// which a node's metrics can produce) are drawn at the edge or at 0.
    static let maxPlottedValue = 1e12

    /// `value` within 0...``maxPlottedValue`` (NaN as 0): with an infinite axis the tick loops
    /// below would never end.
    static func plottable(_ value: Double) -> Double {
        value.isNaN ? 0 : min(max(value, 0), maxPlottedValue)
    }

    /// The chart as SVG text.
    static func svg(_ points: [Point], title: String, note: String) -> String {
        let sorted = points.map { point in
            Point(
                rate: plottable(point.rate), p50Ms: plottable(point.p50Ms), p99Ms: plottable(point.p99Ms),
                meanMs: plottable(point.meanMs))
        }.sorted { $0.rate < $1.rate }
        let maxRate = max(sorted.map(\.rate).max() ?? 1, 1)
        let maxMs = max(sorted.flatMap { [$0.p50Ms, $0.p99Ms, $0.meanMs] }.max() ?? 0.001, 0.001)
        let xStep = niceStep(maxRate), yStep = niceStep(maxMs)
        let xMax = ceil(maxRate / xStep) * xStep, yMax = ceil(maxMs * 1.05 / yStep) * yStep
        let plotWidth = width - left - right, plotHeight = height - top - bottom
        func x(_ rate: Double) -> Double { left + rate / xMax * plotWidth }
        func y(_ ms: Double) -> Double { top + plotHeight - ms / yMax * plotHeight }

        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
            viewBox="0 0 \(Int(width)) \(Int(height))" font-family="Helvetica, Arial, sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(fmt(width / 2))" y="26" text-anchor="middle" font-size="16" font-weight="bold">\(escape(title))</text>

            """
        // Grid and ticks.
        var tick = 0.0
        while tick <= xMax + xStep / 1000 {
            let px = fmt(x(tick))
            svg += "<line x1=\"\(px)\" y1=\"\(fmt(top))\" x2=\"\(px)\" y2=\"\(fmt(top + plotHeight))\" stroke=\"#e4e4e4\"/>\n"
            svg += "<line x1=\"\(px)\" y1=\"\(fmt(top + plotHeight))\" x2=\"\(px)\" y2=\"\(fmt(top + plotHeight + 5))\" stroke=\"#333\"/>\n"
            svg += "<text x=\"\(px)\" y=\"\(fmt(top + plotHeight + 19))\" text-anchor=\"middle\">\(label(tick))</text>\n"
            tick += xStep
        }
        tick = 0
        while tick <= yMax + yStep / 1000 {
            let py = fmt(y(tick))
            svg += "<line x1=\"\(fmt(left))\" y1=\"\(py)\" x2=\"\(fmt(left + plotWidth))\" y2=\"\(py)\" stroke=\"#e4e4e4\"/>\n"
            svg += "<line x1=\"\(fmt(left - 5))\" y1=\"\(py)\" x2=\"\(fmt(left))\" y2=\"\(py)\" stroke=\"#333\"/>\n"
            svg += "<text x=\"\(fmt(left - 8))\" y=\"\(fmt(y(tick) + 4))\" text-anchor=\"end\">\(label(tick))</text>\n"
            tick += yStep
        }
        // Axes and their labels.
        svg +=
            "<line x1=\"\(fmt(left))\" y1=\"\(fmt(top + plotHeight))\" x2=\"\(fmt(left + plotWidth))\" y2=\"\(fmt(top + plotHeight))\" stroke=\"#333\"/>\n"
        svg += "<line x1=\"\(fmt(left))\" y1=\"\(fmt(top))\" x2=\"\(fmt(left))\" y2=\"\(fmt(top + plotHeight))\" stroke=\"#333\"/>\n"
        svg +=
            "<text x=\"\(fmt(left + plotWidth / 2))\" y=\"\(fmt(top + plotHeight + 42))\" text-anchor=\"middle\" font-size=\"13\">"
            + "achieved topic changes per second (all nodes)</text>\n"
        svg +=
            "<text x=\"20\" y=\"\(fmt(top + plotHeight / 2))\" text-anchor=\"middle\" font-size=\"13\" "
            + "transform=\"rotate(-90 20 \(fmt(top + plotHeight / 2)))\">reconcile cycle duration (ms)</text>\n"
        svg += "<text x=\"\(fmt(left))\" y=\"\(fmt(height - 10))\" font-size=\"10\" fill=\"#666\">\(escape(note))</text>\n"

        // Series.
        let series: [(name: String, color: String, dash: String?, value: (Point) -> Double)] = [
            ("p99", "#d62728", nil, \.p99Ms),
            ("p50", "#1f77b4", nil, \.p50Ms),
            ("mean during the run", "#7f7f7f", "6 4", \.meanMs),
        ]
        for item in series {
            let path = sorted.map { "\(fmt(x($0.rate))),\(fmt(y(item.value($0))))" }.joined(separator: " ")
            svg +=
                "<polyline fill=\"none\" stroke=\"\(item.color)\" stroke-width=\"2\""
                + (item.dash.map { " stroke-dasharray=\"\($0)\"" } ?? "") + " points=\"\(path)\"/>\n"
            for point in sorted {
                svg += "<circle cx=\"\(fmt(x(point.rate)))\" cy=\"\(fmt(y(item.value(point))))\" r=\"3.5\" fill=\"\(item.color)\"/>\n"
            }
        }
        // Legend, top left inside the plot.
        let legendX = left + 14, legendY = top + 10
        svg +=
            "<rect x=\"\(fmt(legendX - 6))\" y=\"\(fmt(legendY - 4))\" width=\"190\" height=\"\(series.count * 18 + 6)\" "
            + "fill=\"white\" fill-opacity=\"0.9\" stroke=\"#bbb\"/>\n"
        for (index, item) in series.enumerated() {
            let ly = legendY + Double(index) * 18 + 8
            svg +=
                "<line x1=\"\(fmt(legendX))\" y1=\"\(fmt(ly))\" x2=\"\(fmt(legendX + 26))\" y2=\"\(fmt(ly))\" stroke=\"\(item.color)\" "
                + "stroke-width=\"2\"" + (item.dash.map { " stroke-dasharray=\"\($0)\"" } ?? "") + "/>\n"
            svg += "<text x=\"\(fmt(legendX + 34))\" y=\"\(fmt(ly + 4))\">\(escape(item.name))</text>\n"
        }
        svg += "</svg>\n"
        return svg
    }
}
