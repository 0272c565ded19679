import ArgumentParser
import Foundation
import MotionWire

/// `motionctl plot --frames FILE`: the frames that really went out (the inspector's "Frames (JSON lines)",
/// `motionctl watch --frames --json`), one curve per property component over time — retargets,
/// interruptions and hand-offs as clients saw them, where `plan.sample` shows only the plan as written.
extension Plot {
    /// At most this many properties in one chart (its colours and legend); --target narrows a recording.
    static let maximumFrameSeries = 8

    func plotFrames(from file: String) throws {
        guard out.lowercased().hasSuffix(".svg") else {
            throw ValidationError("--out: \(out) is not an .svg file; motionctl plot writes SVG only (convert it with rsvg-convert or a browser)")
        }
        guard !(velocity && normalize) else {
            // Progress is a value's way from its first to its last: a velocity has no such ends (it starts
            // and ends at 0 for most motion), so the two together drew nothing anyone could read.
            throw ValidationError("--velocity and --normalize: draw velocities or progress, not both (progress is from the values)")
        }
        let data = try readInputFile(file, label: "--frames")
        let recorded = try Self.frameSeries(String(decoding: data, as: UTF8.self), file: file, velocity: velocity,
                                            targets: target.isEmpty ? nil : Set(target))
        guard !recorded.isEmpty else {
            throw ValidationError("--frames: \(file) holds no frame with updates\(target.isEmpty ? "" : " of \(target.joined(separator: ", "))")")
        }
        guard recorded.count <= Self.maximumFrameSeries else {
            let names = recorded.map(\.label).prefix(12).joined(separator: ", ")
            throw ValidationError("--frames: \(recorded.count) properties (\(names)…); at most \(Self.maximumFrameSeries) in a chart: choose with --target")
        }
        let series = normalize ? recorded.map(Self.progress) : recorded
        let quantity = normalize ? "progress (0: first value, 1: last)" : velocity ? "velocity (property units/s)" : "value (property units)"
        let title = "\(series.count == 1 ? series[0].label : "\(series.count) properties") as sent, \(normalize ? "progress" : velocity ? "velocity" : "value")"
        try write(PlotChart(title: title, property: series.count == 1 ? series[0].label : "", series: series, axis: quantity))
        let seconds = series.compactMap(\.times.last).max() ?? 0
        print("wrote \(out): \(series.count) propert\(series.count == 1 ? "y" : "ies") from \(series.reduce(0) { $0 + $1.times.count }) updates over \(String(format: "%.3g", seconds)) s")
    }

    /// Each property's updates in order: times from the first frame (`present` where a display timed it, else
    /// `t`), values or velocities. Lines that are not frames (trace events, replies) are passed over; a line
    /// that is not JSON is an error naming it.
    static func frameSeries(_ text: String, file: String, velocity: Bool, targets: Set<String>?) throws -> [PlotChart.Series] {
        var order: [String] = [], series: [String: PlotChart.Series] = [:]
        var start: Double?
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
            let event: JSONValue
            do { event = try JSONValue.parse(Array(line.utf8)) } catch {
                throw ValidationError("--frames: \(file) line \(number + 1) is not JSON (\(error))")
            }
            guard event["event"] == "frame", let updates = event["updates"]?.arrayValue,
                  let time = event["present"]?.doubleValue ?? event["t"]?.doubleValue else { continue }
            let origin = start ?? time
            start = origin
            for update in updates {
                guard let target = update["target"]?.stringValue, let property = update["property"]?.stringValue,
                      targets?.contains(target) ?? true,
                      let vector = update[velocity ? "velocity" : "value"]?.arrayValue?.compactMap(\.doubleValue), !vector.isEmpty
                else { continue }
                let runtime = update["runtime"]?.stringValue ?? "default"
                let label = (runtime == "default" ? "" : "\(runtime)/") + "\(target).\(property)"
                if series[label] == nil {
                    order.append(label)
                    series[label] = PlotChart.Series(label: label, property: label, times: [], values: [], settleTime: nil, target: [])
                }
                series[label]!.times.append(time - origin)
                series[label]!.values.append(vector)
            }
        }
        return order.map { series[$0]! }
    }

    /// A curve as progress from its first vector (0) to its last (1), per component; a component that
    /// ends where it began stays at 0.
    static func progress(_ drawn: PlotChart.Series) -> PlotChart.Series {
        guard let first = drawn.values.first, let last = drawn.values.last else { return drawn }
        var scaled = drawn
        scaled.values = drawn.values.map { vector in
            vector.indices.map { index in
                guard index < first.count, index < last.count, abs(last[index] - first[index]) > 1e-12 else { return 0 }
                return (vector[index] - first[index]) / (last[index] - first[index])
            }
        }
        return scaled
    }
}
