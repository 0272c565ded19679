import Foundation
import MotionWire

/// An SVG line chart of sampled vectors: one curve per component of each plan drawn (several plans are
/// overlaid), axes with ticks and units, a legend, each plan's target marked as a dotted line and its
/// settle time as a dashed one. Pure string building, no dependencies.
struct PlotChart {
    struct Series {
        /// How the legend names it (the plan's type, and its place when several are drawn).
        var label: String
        /// The property drawn (a composite's first plan's, unless asked).
        var property: String
        var times: [Double]
        /// values[i] is the vector at times[i].
        var values: [[Double]]
        var settleTime: Double?
        /// Where the plan goes (`to`, a Set's `value`, the last keyframe), one number per component.
        var target: [Double]
    }

    var title: String
    var property: String
    var series: [Series]
    /// The value axis' name (default: the property, in its units).
    var axis: String?

    static let width = 800.0, height = 480.0

    /// The right margin holds the legend: wider for longer names (`Spring @expressive.spatial.default x[0]`),
    /// the plot the same.
    var rightMargin: Double {
        let longest = series.enumerated().map { "\($0.offset + 1). \($0.element.label) \($0.element.property)[0]".count }.max() ?? 0
        return max(Self.margin.right, 56 + 7 * Double(longest))
    }
    var width: Double { Self.width - Self.margin.right + rightMargin }
    static let margin = (left: 80.0, right: 190.0, top: 50.0, bottom: 60.0)
    static let legendLines = 18
    static let colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"]

    /// Where `plan` goes, from its own keys.
    static func target(of plan: JSONValue) -> [Double] {
        let vector = plan["to"] ?? plan["value"] ?? plan["values"]?.arrayValue?.last
        return (vector?.arrayValue ?? []).compactMap(\.doubleValue)
    }

    var svg: String {
        let allValues = series.flatMap { $0.values.flatMap { $0 } + $0.target }
        let times = series.flatMap(\.times).sorted()
        var low = allValues.min() ?? 0, high = allValues.max() ?? 1
        if high - low < 1e-9 { low -= 1; high += 1 }
        let pad = (high - low) * 0.05
        let yTicks = Self.ticks(from: low - pad, to: high + pad)
        let xTicks = Self.ticks(from: 0, to: times.last ?? 1)
        let (yMin, yMax) = (yTicks.first!, yTicks.last!)
        let (xMin, xMax) = (0.0, max(xTicks.last!, times.last ?? 1))
        let plotWidth = width - Self.margin.left - rightMargin
        let plotHeight = Self.height - Self.margin.top - Self.margin.bottom
        func x(_ t: Double) -> Double { Self.margin.left + (t - xMin) / (xMax - xMin) * plotWidth }
        func y(_ v: Double) -> Double { Self.margin.top + (1 - (v - yMin) / (yMax - yMin)) * plotHeight }

        var out = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(Self.height))" viewBox="0 0 \(Int(width)) \(Int(Self.height))" font-family="sans-serif" font-size="12">
        <rect width="100%" height="100%" fill="white"/>
        <text x="\(f(width / 2))" y="24" text-anchor="middle" font-size="16">\(Self.escape(title))</text>

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
        out += "<text transform=\"translate(22 \(f(Self.margin.top + plotHeight / 2))) rotate(-90)\" text-anchor=\"middle\">\(Self.escape(axis ?? "\(property) (property units)"))</text>\n"
        // Each plan's curves (one per component), its target and settle time, and the legend.
        var line = 0
        for (index, drawn) in series.enumerated() {
            let components = drawn.values.map(\.count).max() ?? 0
            for component in 0..<components {
                let colour = Self.colours[line % Self.colours.count]
                let points = zip(drawn.times, drawn.values).compactMap { time, vector in
                    component < vector.count ? "\(f(x(time))),\(f(y(vector[component])))" : nil
                }.joined(separator: " ")
                out += "<polyline fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2\" points=\"\(points)\"/>\n"
                if component < drawn.target.count {
                    let level = drawn.target[component]
                    out += "<line x1=\"\(f(x(xMin)))\" y1=\"\(f(y(level)))\" x2=\"\(f(x(xMax)))\" y2=\"\(f(y(level)))\" stroke=\"\(colour)\" stroke-dasharray=\"2 4\" stroke-opacity=\"0.7\"/>\n"
                    out += "<text x=\"\(f(x(xMax) - 4))\" y=\"\(f(y(level) - 4))\" text-anchor=\"end\" fill=\"\(colour)\">target \(Self.label(level))</text>\n"
                }
                // The legend holds 18 lines; the rest are counted in its last.
                let legendY = Self.margin.top + 10 + Double(min(line, Self.legendLines)) * 20
                if line < Self.legendLines {
                    out += "<line x1=\"\(f(width - rightMargin + 15))\" y1=\"\(f(legendY))\" x2=\"\(f(width - rightMargin + 40))\" y2=\"\(f(legendY))\" stroke=\"\(colour)\" stroke-width=\"2\"/>\n"
                    let name = series.count > 1 ? "\(index + 1). " + (drawn.label == drawn.property ? "" : "\(drawn.label) ") : ""
                    out += "<text x=\"\(f(width - rightMargin + 46))\" y=\"\(f(legendY + 4))\">\(Self.escape(name + drawn.property))[\(component)]</text>\n"
                } else if line == Self.legendLines {
                    let more = series.reduce(0) { $0 + ($1.values.map(\.count).max() ?? 0) } - Self.legendLines
                    out += "<text x=\"\(f(width - rightMargin + 15))\" y=\"\(f(legendY + 4))\">… \(more) more</text>\n"
                }
                line += 1
            }
            if let settleTime = drawn.settleTime, settleTime <= xMax {
                out += "<line x1=\"\(f(x(settleTime)))\" y1=\"\(f(y(yMin)))\" x2=\"\(f(x(settleTime)))\" y2=\"\(f(y(yMax)))\" stroke=\"#555\" stroke-dasharray=\"6 4\"/>\n"
                let name = series.count > 1 ? "\(index + 1). " : ""
                out += "<text x=\"\(f(x(settleTime) + 4))\" y=\"\(f(y(yMax) + 14 + Double(index) * 14))\">\(name)settles at \(Self.label(settleTime)) s</text>\n"
            }
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
