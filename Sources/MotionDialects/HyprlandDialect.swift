import MotionJSON

/// Hyprland's `bezier = NAME, x0, y0, x1, y1` and `animation = NAME, ONOFF, SPEED, CURVE[, STYLE]` lines
/// (in `animations { }` or at the top level; SPEED in tenths of a second) ⇄ theme tokens
/// (docs/themes.md#dialects): a bezier is a timing token; an animation a Tween motion and a duration
/// of its name. Hyprland has no springs.
public enum HyprlandDialect {
    /// Hyprland's own curve of that name (its source: `default` is (0, 0.75, 0.15, 1)).
    static let builtIn: [String: [Double]] = ["default": [0, 0.75, 0.15, 1]]

    /// CSS's keyword curves, each an exact cubic Bézier Hyprland can say.
    static let keywordCurves: [String: [Double]] = [
        "ease": [0.25, 0.1, 0.25, 1], "ease-in": [0.42, 0, 1, 1], "ease-out": [0, 0, 0.58, 1],
        "ease-in-out": [0.42, 0, 0.58, 1], "linear": [0, 0, 1, 1],
    ]

    public static func importTheme(_ text: String, name: String = "hyprland-import") throws(DialectError) -> DialectResult<JSONValue> {
        var beziers = builtIn, timings: [String: JSONValue] = [:], durations: [String: JSONValue] = [:]
        var motions: [String: JSONValue] = [:], unsaid: [String] = []
        // The sections around a line: a whole hyprland.conf is read for its animations (its other
        // sections, variables and keys are not motion, and are passed over).
        var sections: [String] = []
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = number + 1
            let content = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            let trimmed = content.trimmingSpaces
            if trimmed.isEmpty { continue }
            if trimmed == "}" {
                _ = sections.popLast()
                continue
            }
            if trimmed.hasSuffix("{") {
                sections.append(String(trimmed.dropLast()).trimmingSpaces)
                continue
            }
            let inAnimations = sections.last == "animations"
            guard let equals = trimmed.firstIndex(of: "=") else {
                if !inAnimations { continue }
                throw DialectError(line: line, column: column(of: trimmed, in: rawLine), "expected KEY = VALUE")
            }
            var key = String(trimmed[..<equals]).trimmingSpaces
            if sections.isEmpty, key.hasPrefix("animations:") { key = String(key.dropFirst(11)) }  // `animations:enabled = …`
            guard inAnimations || (sections.isEmpty && ["bezier", "animation", "enabled"].contains(key)) else { continue }
            let fields = trimmed[trimmed.index(after: equals)...].split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
            let at = column(of: trimmed, in: rawLine)
            switch key {
            case "bezier":
                let numbers = fields.dropFirst().compactMap { Double($0) }
                guard fields.count == 5, numbers.count == 4, !fields[0].isEmpty else {
                    throw DialectError(line: line, column: at, "bezier = NAME, X0, Y0, X1, Y1")
                }
                beziers[fields[0]] = numbers
                timings[tokenName(fields[0])] = .array(numbers.map(JSONValue.number))
            case "animation":
                guard fields.count >= 4, let enabled = Int(fields[1]), let speed = Double(fields[2]), speed >= 0 else {
                    throw DialectError(line: line, column: at, "animation = NAME, ONOFF, SPEED, CURVE[, STYLE]")
                }
                let token = tokenName(fields[0])
                if enabled == 0 { unsaid.append("\(fields[0]): off"); continue }
                guard let curve = beziers[fields[3]] else {
                    throw DialectError(line: line, column: at, "curve \"\(fields[3])\" is not a bezier defined above")
                }
                durations[token] = .number(speed / 10)
                motions[token] = ["type": "Tween", "timing": .array(curve.map(JSONValue.number)), "duration": .number(speed / 10)]
                if fields.count > 4 { unsaid.append("\(fields[0]): style \(fields[4...].joined(separator: ", "))") }
            case "enabled": continue
            // Hyprland's other animations settings: not motion a token says.
            case "first_launch_animation", "workspace_wraparound":
                unsaid.append("\(key) = \(fields.joined(separator: ", "))")
            default:
                throw DialectError(line: line, column: at, "unknown key \"\(key)\" (bezier, animation, enabled)")
            }
        }
        var theme: [String: JSONValue] = ["name": .string(name)]
        if !timings.isEmpty { theme["timings"] = .object(timings) }
        if !durations.isEmpty { theme["durations"] = .object(durations) }
        if !motions.isEmpty { theme["motions"] = .object(motions) }
        return DialectResult(output: .object(theme), unsaid: unsaid)
    }

    static func column(of trimmed: String, in line: Substring) -> Int {
        (line.firstIndex { $0 != " " && $0 != "\t" }.map { line.distance(from: line.startIndex, to: $0) } ?? 0) + 1
    }

    /// `windows-out` → `windowsOut` (Hyprland's animation names).
    static func hyprlandName(_ token: String) -> String {
        let words = token.split(whereSeparator: { $0 == "-" || $0 == "." })
        return words.enumerated().map { $0.offset == 0 ? String($0.element) : $0.element.prefix(1).uppercased() + $0.element.dropFirst() }.joined()
    }

    public static func exportTheme(_ theme: JSONValue) -> DialectResult<String> {
        var lines = ["animations {", "    enabled = true"], unsaid: [String] = []
        let timings = theme["timings"]?.objectValue ?? [:]
        // Hyprland's own curves are named, not defined.
        var curveNames: [[Double]: String] = Dictionary(uniqueKeysWithValues: builtIn.map { ($0.value, $0.key) })
        for (name, timing) in timings.sorted(by: { $0.key < $1.key }) {
            guard let numbers = timing.arrayValue?.compactMap(\.doubleValue) ?? timing.stringValue.flatMap({ keywordCurves[$0] }),
                  numbers.count == 4 else {
                unsaid.append("timing \(name): \(JSONWriter.string(timing)) (Hyprland's curves are cubic Béziers)")
                continue
            }
            let curve = hyprlandName(name)
            curveNames[numbers] = curveNames[numbers] ?? curve
            lines.append("    bezier = \(curve), " + numbers.map(spelled).joined(separator: ", "))
        }
        for (name, motion) in (theme["motions"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard motion["type"] == "Tween", let seconds = motion["duration"]?.doubleValue,
                  let numbers = motion["timing"]?.arrayValue?.compactMap(\.doubleValue) ?? motion["timing"]?.stringValue.flatMap({ keywordCurves[$0] }),
                  numbers.count == 4 else {
                unsaid.append("motion \(name): Hyprland animates with a Bézier and a speed only")
                continue
            }
            let curve = curveNames[numbers] ?? hyprlandName(name) + "Curve"
            if curveNames[numbers] == nil {
                curveNames[numbers] = curve
                lines.append("    bezier = \(curve), " + numbers.map(spelled).joined(separator: ", "))
            }
            lines.append("    animation = \(hyprlandName(name)), 1, \(spelled((seconds * 10 * 1e6).rounded() / 1e6)), \(curve)")
        }
        for name in (theme["springs"]?.objectValue ?? [:]).keys.sorted() { unsaid.append("spring \(name): Hyprland has no springs") }
        for name in (theme["durations"]?.objectValue ?? [:]).keys.sorted() where theme["motions"]?[name] == nil {
            unsaid.append("duration \(name): no motion of the same name")
        }
        lines.append("}")
        return DialectResult(output: lines.joined(separator: "\n") + "\n", unsaid: unsaid)
    }
}

extension StringProtocol {
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed())
    }
}
