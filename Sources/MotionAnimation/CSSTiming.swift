import MotionPluginKit

/// Timing functions written as CSS writes them (CSS Easing 1 and 2, docs/vocabulary.md): `ease`, `ease-in`,
/// `ease-out`, `ease-in-out`, `linear`, `cubic-bezier(a, b, c, d)`, `steps(n[, position])`, `step-start`,
/// `step-end` and `linear(…)` with optional percentages.
package enum CSSTiming {
    /// The curve `text` names, or a message saying what is wrong with it.
    package static func parse(_ text: String) -> Result<TimingCurve, PlanError> {
        let trimmed = text.trimmingWhitespace()
        if let preset = TimingCurve.presets[trimmed] { return .success(preset) }
        guard let open = trimmed.firstIndex(of: "("), trimmed.hasSuffix(")") else {
            return .failure(PlanError("timing: unknown timing function \"\(text)\"; known: \(TimingCurve.presets.keys.sorted().joined(separator: ", ")), cubic-bezier(…), steps(…), linear(…)"))
        }
        let name = trimmed[..<open].trimmingWhitespace()
        let arguments = trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)]
            .splittingBytes(at: UInt8(ascii: ",")).map { $0.trimmingWhitespace() }
        switch name {
        case "cubic-bezier":
            let numbers = arguments.compactMap(Double.init)
            guard numbers.count == 4, arguments.count == 4, numbers.allSatisfy(\.isFinite),
                  (0...1).contains(numbers[0]), (0...1).contains(numbers[2]),
                  UnitBezier.allowedY.contains(numbers[1]), UnitBezier.allowedY.contains(numbers[3]) else {
                return .failure(PlanError("timing: cubic-bezier(x1, y1, x2, y2) takes four numbers, x1 and x2 in [0, 1], y1 and y2 within ±1000: \"\(text)\""))
            }
            return .success(.bezier(UnitBezier(numbers[0], numbers[1], numbers[2], numbers[3])))
        case "steps":
            guard (1...2).contains(arguments.count), let count = Int(arguments[0]) else {
                return .failure(PlanError("timing: steps(n[, jump-start|jump-end|jump-none|jump-both|start|end]): \"\(text)\""))
            }
            let keyword = arguments.count == 2 ? arguments[1] : "end"
            let position: TimingCurve.StepPosition
            switch keyword {
            case "jump-start", "start": position = .jumpStart
            case "jump-end", "end": position = .jumpEnd
            case "jump-none": position = .jumpNone
            case "jump-both": position = .jumpBoth
            default: return .failure(PlanError("timing: steps position \"\(keyword)\" is not jump-start, jump-end, jump-none, jump-both, start or end"))
            }
            guard count >= (position == .jumpNone ? 2 : 1), count <= 100_000 else {
                return .failure(PlanError("timing: steps(\(count)…) takes \(position == .jumpNone ? 2 : 1) to 100,000 steps"))
            }
            return .success(.steps(count: count, position: position))
        case "linear":
            return linear(arguments, text)
        default:
            return .failure(PlanError("timing: unknown timing function \"\(name)(…)\"; known: cubic-bezier, steps, linear"))
        }
    }

    /// CSS Easing 2 §2.2: each stop is an output and zero, one or two input percentages; the first input
    /// defaults to 0 %, the last to 100 %, inputs never go back, and missing ones are spread evenly.
    static func linear(_ stops: [String], _ text: String) -> Result<TimingCurve, PlanError> {
        var outputs: [Double] = [], inputs: [Double?] = []
        for stop in stops {
            let parts = stop.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard let first = parts.first, let output = Double(first), output.isFinite, parts.count <= 3 else {
                return .failure(PlanError("timing: linear(…) stops are a number with up to two percentages: \"\(text)\""))
            }
            var percentages: [Double] = []
            for part in parts.dropFirst() {
                guard part.hasSuffix("%"), let value = Double(part.dropLast()), value.isFinite else {
                    return .failure(PlanError("timing: linear(…): \"\(part)\" is not a percentage"))
                }
                percentages.append(value / 100)
            }
            if percentages.isEmpty {
                outputs.append(output)
                inputs.append(nil)
            }
            for input in percentages {
                outputs.append(output)
                inputs.append(input)
            }
        }
        guard outputs.count >= 2, outputs.count <= 10_000 else {
            return .failure(PlanError("timing: linear(…) needs at least two stops: \"\(text)\""))
        }
        if inputs[0] == nil { inputs[0] = 0 }
        if inputs[inputs.count - 1] == nil { inputs[inputs.count - 1] = 1 }
        var largest = -Double.infinity
        for index in inputs.indices {
            if let input = inputs[index] {
                largest = max(largest, input)
                inputs[index] = largest
            }
        }
        var index = 0
        while index < inputs.count {
            guard inputs[index] == nil else {
                index += 1
                continue
            }
            let start = index - 1
            var end = index
            while inputs[end] == nil { end += 1 }
            let (from, to) = (inputs[start]!, inputs[end]!)
            for missing in index..<end {
                inputs[missing] = from + (to - from) * Double(missing - start) / Double(end - start)
            }
            index = end
        }
        return .success(.polyline(zip(inputs, outputs).map { (input: $0!, output: $1) }))
    }
}

/// By UTF-8 bytes, not Characters: a `linear(…)` of 2,400 stops (a 64 KiB plan) took 26 ms of the engine
/// thread to parse Character by Character (grapheme breaking), ~1 ms by bytes. Spaces, tabs and commas
/// are ASCII, so the byte positions are Character boundaries.
extension String {
    func trimmingWhitespace() -> String { self[...].trimmingWhitespace() }
}

extension Substring {
    func trimmingWhitespace() -> String {
        let bytes = utf8
        var start = bytes.startIndex, end = bytes.endIndex
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start = bytes.index(after: start) }
        while start < end {
            let last = bytes.index(before: end)
            guard bytes[last] == 0x20 || bytes[last] == 0x09 else { break }
            end = last
        }
        return String(self[start..<end])
    }

    /// The parts between `separator` bytes (empty ones kept), as `split(separator:omittingEmptySubsequences: false)`.
    func splittingBytes(at separator: UInt8) -> [Substring] {
        var parts: [Substring] = []
        var start = utf8.startIndex
        var index = start
        while index < utf8.endIndex {
            if utf8[index] == separator {
                parts.append(self[start..<index])
                start = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        parts.append(self[start..<utf8.endIndex])
        return parts
    }
}
