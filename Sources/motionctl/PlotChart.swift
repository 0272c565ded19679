import Foundation

/// An SVG line chart of sampled vectors: one curve per component, axes with ticks and units, a legend,
/// and the settle time marked. Pure string building, no dependencies.
struct PlotChart {
    var title: String
    var property: String
    var times: [Double]
    /// values[i] is the vector at times[i].
    var values: [[Double]]
    var settleTime: Double?

    static let width = 800.0, height = 480.0
    static let margin = (left: 80.0, right: 150.0, top: 50.0, bottom: 60.0)
    static let colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]

    var svg: String {
        let components = values.map(\.count).max() ?? 0
        let allValues = values.flatMap { $0 }
        var low = allValues.min() ?? 0, high = allValues.max() ?? 1
        if high - low < 1e-9 { low -= 1; high += 1 }
        let pad = (high - low) * 0.05
        let yTicks = Self.ticks(from: low - pad, to: high + pad)
        let xTicks = Self.ticks(from: 0, to: times.last ?? 1)
        let (yMin, yMax) = (yTicks.first!, yTicks.last!)
        let (xMin, xMax) = (0.0, max(xTicks.last!, times.last ?? 1))
        let plotWidth = Self.width - Self.margin.left - Self.margin.right
        let plotHeight = Self.height - Self.margin.top - Self.margin.bottom
        func x(_ t: Double) -> Double { Self.margin.left + (t - xMin) / (xMax - xMin) * plotWidth }
        func y(_ v: Double) -> Double { Self.margin.top + (1 - (v - yMin) / (yMax - yMin)) * plotHeight }

        var out = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(Self.width))" height="\(Int(Self.height))" viewBox="0 0 \(Int(Self.width)) \(Int(Self.height))" font-family="sans-serif" font-size="12">
        <rect width="100%" height="100%" fill="white"/>
        <text x="\(f(Self.width / 2))" y="24" text-anchor="middle" font-size="16">\(Self.escape(title))</text>

        """
        // Grid and ticks.
        for tick in yTicks {
            out += "<line x1=\"\(f(x(xMin)))\" y1=\"\(f(y(tick)))\" x2=\"\(f(x(xMax)))\" y2=\"\(f(y(tick)))\" stroke=\"#e5e5e5\"/>\n"
            out += "<text x=\"\(f(x(xMin) - 8))\" y=\"\(f(y(tick) + 4))\" text-anchor=\"end\">\(Self.label(tick))</text>\n"
        }
        for tick in xTicks {
            out += "<line x1=\"\(f(x(tick)))\" y1=\"\(f(y(yMin)))\" x2=\"\(f(x(tick)))\" y2=\"\(f(y(yMax)))\" stroke=\"#f0f0f0\"/>\n"
            out += "<text x=\"\(f(x(tick)))\" y=\"\(f(y(yMin) + 18))\" text-anchor=\"middle\">\(Self.label(tick))</text>\n"
        }
        // Axes with their units.
        out += "<line x1=\"\(f(x(xMin)))\" y1=\"\(f(y(yMin)))\" x2=\"\(f(x(xMax)))\" y2=\"\(f(y(yMin)))\" stroke=\"black\"/>\n"
        out += "<line x1=\"\(f(x(xMin)))\" y1=\"\(f(y(yMin)))\" x2=\"\(f(x(xMin)))\" y2=\"\(f(y(yMax)))\" stroke=\"black\"/>\n"
        out += "<text x=\"\(f(x(xMin) + plotWidth / 2))\" y=\"\(f(Self.height - 18))\" text-anchor=\"middle\">time (s)</text>\n"
        out += "<text transform=\"translate(22 \(f(Self.margin.top + plotHeight / 2))) rotate(-90)\" text-anchor=\"middle\">\(Self.escape(property)) (property units)</text>\n"
        // Settle time.
        if let settleTime, settleTime <= xMax {
            out += "<line x1=\"\(f(x(settleTime)))\" y1=\"\(f(y(yMin)))\" x2=\"\(f(x(settleTime)))\" y2=\"\(f(y(yMax)))\" stroke=\"#555\" stroke-dasharray=\"6 4\"/>\n"
            out += "<text x=\"\(f(x(settleTime) + 4))\" y=\"\(f(y(yMax) + 14))\">settles at \(Self.label(settleTime)) s</text>\n"
        }
        // One curve per component, and the legend.
        for component in 0..<components {
            let colour = Self.colours[component % Self.colours.count]
            let points = zip(times, values).compactMap { time, vector in
                component < vector.count ? "\(f(x(time))),\(f(y(vector[component])))" : nil
            }.joined(separator: " ")
            out += "<polyline fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2\" points=\"\(points)\"/>\n"
            let legendY = Self.margin.top + 10 + Double(component) * 20
            out += "<line x1=\"\(f(Self.width - Self.margin.right + 15))\" y1=\"\(f(legendY))\" x2=\"\(f(Self.width - Self.margin.right + 40))\" y2=\"\(f(legendY))\" stroke=\"\(colour)\" stroke-width=\"2\"/>\n"
            out += "<text x=\"\(f(Self.width - Self.margin.right + 46))\" y=\"\(f(legendY + 4))\">\(Self.escape(property))[\(component)]</text>\n"
        }
        return out + "</svg>\n"
    }

    /// About six round tick values covering [low, high] (steps of 1, 2 or 5 × 10ⁿ).
    static func ticks(from low: Double, to high: Double) -> [Double] {
        let span = max(high - low, 1e-9)
        let raw = span / 6, magnitude = pow(10, floor(log10(raw)))
        let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? 10 * magnitude
        var ticks: [Double] = []
        var tick = floor(low / step) * step
        while tick < high + step * 0.999 {
            ticks.append(abs(tick) < step * 1e-9 ? 0 : tick)
            tick += step
        }
        return ticks
    }

    static func label(_ value: Double) -> String {
        var text = String(format: "%.4g", value)
        if text == "-0" { text = "0" }
        return text
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    private func f(_ value: Double) -> String { String(format: "%.1f", value) }
}
