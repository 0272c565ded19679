import MotionJSON

/// niri's `animations { … }` block (niri's wiki, "Configuration: Animations") ⇄ theme tokens
/// (docs/themes.md#dialects). An animation with `spring damping-ratio= stiffness= epsilon=` is a spring
/// token; one with `duration-ms` and `curve` is a timing and a duration token of its name.
public enum NiriDialect {
    /// niri's curve names, and `cubic-bezier` with four numbers.
    static let curves: Set<String> = ["linear", "ease-out-quad", "ease-out-cubic", "ease-out-expo"]

    public static func importTheme(_ text: String, name: String = "niri-import") throws(DialectError) -> DialectResult<JSONValue> {
        let document = try KDL.parse(text)
        // The block itself, or a file of its animations.
        let animations = document.first { $0.name == "animations" }?.children ?? document
        var springs: [String: JSONValue] = [:], timings: [String: JSONValue] = [:], durations: [String: JSONValue] = [:]
        var unsaid: [String] = []
        for node in animations {
            switch node.name {
            case "off": unsaid.append("off (every animation turned off)"); continue
            case "slowdown": unsaid.append("slowdown \(node.arguments.first?.number.map(spelled) ?? "?") (motiond's speed is an admin's setting)"); continue
            default: break
            }
            let token = tokenName(node.name)
            for child in node.children {
                switch child.name {
                case "spring":
                    guard let ratio = child.properties["damping-ratio"]?.number, let stiffness = child.properties["stiffness"]?.number else {
                        throw DialectError(line: child.line, column: child.column, "spring needs damping-ratio= and stiffness=")
                    }
                    var keys: [String: JSONValue] = ["dampingRatio": .number(ratio), "stiffness": .number(stiffness)]
                    if let epsilon = child.properties["epsilon"]?.number { keys["epsilon"] = .number(epsilon) }
                    springs[token] = .object(keys)
                case "duration-ms":
                    guard let ms = child.arguments.first?.number, ms >= 0 else {
                        throw DialectError(line: child.line, column: child.column, "duration-ms needs a number of milliseconds")
                    }
                    durations[token] = .number(ms / 1000)
                case "curve":
                    guard let curve = child.arguments.first?.string else {
                        throw DialectError(line: child.line, column: child.column, "curve needs a name in quotes")
                    }
                    if curve == "cubic-bezier" {
                        let numbers = child.arguments.dropFirst().compactMap(\.number)
                        guard numbers.count == 4 else { throw DialectError(line: child.line, column: child.column, "cubic-bezier needs four numbers") }
                        timings[token] = .array(numbers.map(JSONValue.number))
                    } else if curves.contains(curve) {
                        timings[token] = .string(curve)
                    } else {
                        throw DialectError(line: child.line, column: child.column, "unknown curve \"\(curve)\" (niri has \(curves.sorted().joined(separator: ", ")), cubic-bezier)")
                    }
                case "off": unsaid.append("\(node.name): off")
                case "custom-shader": unsaid.append("\(node.name): custom-shader (a shader is not motion)")
                default:
                    throw DialectError(line: child.line, column: child.column, "unknown animation setting \"\(child.name)\"")
                }
            }
        }
        var theme: [String: JSONValue] = ["name": .string(name)]
        if !springs.isEmpty { theme["springs"] = .object(springs) }
        if !timings.isEmpty { theme["timings"] = .object(timings) }
        if !durations.isEmpty { theme["durations"] = .object(durations) }
        return DialectResult(output: .object(theme), unsaid: unsaid)
    }

    public static func exportTheme(_ theme: JSONValue) -> DialectResult<String> {
        var lines = ["animations {"], unsaid: [String] = []
        let springs = theme["springs"]?.objectValue ?? [:], timings = theme["timings"]?.objectValue ?? [:]
        let durations = theme["durations"]?.objectValue ?? [:]
        for (name, token) in springs.sorted(by: { $0.key < $1.key }) {
            guard let form = SpringForm(token: token) else { unsaid.append("spring \(name): not a spring"); continue }
            let spring = form.perUnitMass
            if token["overshootClamping"] != nil || token["threshold"] != nil { unsaid.append("spring \(name): overshootClamping, threshold") }
            var line = "        spring damping-ratio=\(spelled(spring.dampingRatio)) stiffness=\(spelled(spring.stiffness))"
            if let epsilon = spring.epsilon { line += " epsilon=\(spelled(epsilon))" }
            lines += ["    \(name) {", line, "    }"]
        }
        for (name, timing) in timings.sorted(by: { $0.key < $1.key }) where springs[name] == nil {
            guard let seconds = durations[name]?.doubleValue else { unsaid.append("timing \(name): no duration of the same name"); continue }
            let curve: String
            if let named = timing.stringValue, curves.contains(named) {
                curve = "\"\(named)\""
            } else if let numbers = timing.arrayValue?.compactMap(\.doubleValue), numbers.count == 4 {
                curve = "\"cubic-bezier\" " + numbers.map(spelled).joined(separator: " ")
            } else {
                unsaid.append("timing \(name): \(JSONWriter.string(timing)) (niri's curves: \(curves.sorted().joined(separator: ", ")), cubic-bezier)")
                continue
            }
            lines += ["    \(name) {", "        duration-ms \(spelled((seconds * 1000 * 1e6).rounded() / 1e6))", "        curve \(curve)", "    }"]
        }
        for name in durations.keys.sorted() where timings[name] == nil && springs[name] == nil {
            unsaid.append("duration \(name): no timing of the same name")
        }
        for name in (theme["motions"]?.objectValue ?? [:]).keys.sorted() { unsaid.append("motion \(name): niri names animations, not partial plans") }
        lines.append("}")
        return DialectResult(output: lines.joined(separator: "\n") + "\n", unsaid: unsaid)
    }
}
