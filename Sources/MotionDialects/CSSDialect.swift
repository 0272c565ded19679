import MotionJSON

/// CSS custom properties `--motion-NAME: cubic-bezier(…) | linear(…) | <keyword> | 250ms` ⇄ theme tokens
/// (docs/themes.md#dialects). A token's dots are `__` in the property's name (`spatial.fast` is
/// `--motion-spatial__fast`). A spring has no CSS form: it is exported as a `linear()` easing within 1e-3
/// of the closed form and `--motion-NAME-duration` for the time it takes to rest.
public enum CSSDialect {
    static let keywords: Set<String> = ["ease", "ease-in", "ease-out", "ease-in-out", "linear", "step-start", "step-end"]

    public static func importTheme(_ text: String, name: String = "css-import") throws(DialectError) -> DialectResult<JSONValue> {
        var timings: [String: JSONValue] = [:], durations: [String: JSONValue] = [:]
        let scalars = Array(text.unicodeScalars)
        var index = 0, line = 1, column = 1
        func advance() {
            if scalars[index] == "\n" { line += 1; column = 1 } else { column += 1 }
            index += 1
        }
        func starts(_ prefix: String) -> Bool {
            let wanted = Array(prefix.unicodeScalars)
            return index + wanted.count <= scalars.count && Array(scalars[index..<index + wanted.count]) == wanted
        }
        while index < scalars.count {
            if starts("/*") {
                let (startLine, startColumn) = (line, column)
                advance(); advance()
                while index < scalars.count, !starts("*/") { advance() }
                guard index < scalars.count else { throw DialectError(line: startLine, column: startColumn, "a /* comment never ends") }
                advance(); advance()
            } else if starts("--motion-"), Self.startsDeclaration(scalars, at: index) {
                let (startLine, startColumn) = (line, column)
                for _ in 0..<9 { advance() }
                var property = ""
                while index < scalars.count, scalars[index] != ":", scalars[index] != ";", scalars[index] != "}" {
                    property.unicodeScalars.append(scalars[index]); advance()
                }
                guard index < scalars.count, scalars[index] == ":" else {
                    throw DialectError(line: startLine, column: startColumn, "expected --motion-NAME: VALUE")
                }
                advance()
                var value = ""
                var depth = 0
                while index < scalars.count, depth > 0 || (scalars[index] != ";" && scalars[index] != "}") {
                    if scalars[index] == "(" { depth += 1 } else if scalars[index] == ")" { depth -= 1 }
                    value.unicodeScalars.append(scalars[index]); advance()
                }
                let token = property.trimmingSpaces.split(separator: "__", omittingEmptySubsequences: false).joined(separator: ".")
                let text = value.trimmingSpaces
                if text.contains("--motion-") {
                    throw DialectError(line: startLine, column: startColumn, "--motion-\(property.trimmingSpaces): its value does not end with ; before the next declaration")
                }
                if let seconds = seconds(text) {
                    durations[token] = .number(seconds)
                } else if text.hasPrefix("cubic-bezier(") {
                    let numbers = text.dropFirst(13).dropLast().split(separator: ",").compactMap { Double(String($0).trimmingSpaces) }
                    guard numbers.count == 4, text.hasSuffix(")") else {
                        throw DialectError(line: startLine, column: startColumn, "cubic-bezier() needs four numbers")
                    }
                    timings[token] = .array(numbers.map(JSONValue.number))
                } else if keywords.contains(text) || ((text.hasPrefix("linear(") || text.hasPrefix("steps(")) && text.hasSuffix(")")) {
                    timings[token] = .string(text)
                } else {
                    throw DialectError(line: startLine, column: startColumn, "--motion-\(property.trimmingSpaces): \"\(text)\" is not a timing or a duration")
                }
            } else {
                advance()
            }
        }
        // `--motion-NAME-duration` beside a timing `--motion-NAME` is NAME's duration (the export's
        // spelling when a timing and a duration share a name, as niri's `window-open` do).
        for (token, seconds) in durations where token.hasSuffix("-duration") {
            let base = String(token.dropLast(9))
            if timings[base] != nil, durations[base] == nil {
                durations[base] = seconds
                durations[token] = nil
            }
        }
        var theme: [String: JSONValue] = ["name": .string(name)]
        if !timings.isEmpty { theme["timings"] = .object(timings) }
        if !durations.isEmpty { theme["durations"] = .object(durations) }
        return DialectResult(output: .object(theme), unsaid: [])
    }

    /// Whether `--motion-` at `index` begins a declaration (after `{`, `;` or the file's start), not a use
    /// of one (`transition: transform 0.3s var(--motion-standard)` in another rule).
    static func startsDeclaration(_ scalars: [Unicode.Scalar], at index: Int) -> Bool {
        var before = index - 1
        while before >= 0, " \t\r\n".unicodeScalars.contains(scalars[before]) { before -= 1 }
        // A comment just before it: what comes before the comment decides.
        while before >= 1, scalars[before] == "/", scalars[before - 1] == "*" {
            before -= 2
            while before >= 1, !(scalars[before - 1] == "/" && scalars[before] == "*") { before -= 1 }
            before -= 2
            while before >= 0, " \t\r\n".unicodeScalars.contains(scalars[before]) { before -= 1 }
        }
        return before < 0 || scalars[before] == "{" || scalars[before] == ";"
    }

    /// Whether CSS reads this timing as it is.
    public static func isCSS(_ text: String) -> Bool {
        keywords.contains(text) || text.hasPrefix("linear(") || text.hasPrefix("steps(") || text.hasPrefix("cubic-bezier(")
    }

    static func seconds(_ text: String) -> Double? {
        if text.hasSuffix("ms"), let ms = Double(String(text.dropLast(2))) { return ms / 1000 }
        if text.hasSuffix("s"), let s = Double(String(text.dropLast())) { return s }
        return nil
    }

    static func property(_ token: String) -> String { "--motion-" + token.split(separator: ".", omittingEmptySubsequences: false).joined(separator: "__") }

    /// `timingSamples`: the values at 1,001 evenly spaced progresses of timings CSS has no words for (a
    /// desktop's easing names: motionctl samples them with `plan.sample`), exported as `linear()`.
    public static func exportTheme(_ theme: JSONValue, timingSamples: [String: [Double]] = [:]) -> DialectResult<String> {
        var lines = [":root {"], unsaid: [String] = []
        // One custom property per name: a later token whose name is taken says so in `unsaid`.
        var emitted = Set<String>()
        func emit(_ name: String, _ value: String) -> Bool {
            guard emitted.insert(name).inserted else { return false }
            lines.append("  \(property(name)): \(value);")
            return true
        }
        let durationNames = Set((theme["durations"]?.objectValue ?? [:]).keys)
        for (name, token) in (theme["springs"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let spring = SpringForm(token: token) else { unsaid.append("spring \(name): not a spring"); continue }
            let duration = spring.settlingDuration
            _ = emit(name, linear(sampling: { spring.progress(at: $0 * duration) }))
            // Its time to rest, unless a duration token of its name says a time of its own.
            if !durationNames.contains(name) { _ = emit(name + "-duration", "\(spelled((duration * 1000).rounded()))ms") }
        }
        for (name, timing) in (theme["timings"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard !emitted.contains(name) else {
                unsaid.append("timing \(name): --motion-\(name) is the spring of that name")
                continue
            }
            if let numbers = timing.arrayValue?.compactMap(\.doubleValue), numbers.count == 4 {
                _ = emit(name, "cubic-bezier(\(numbers.map(spelled).joined(separator: ", ")))")
            } else if let text = timing.stringValue, isCSS(text) {
                _ = emit(name, text)
            } else if let samples = timingSamples[name], samples.count > 1 {
                _ = emit(name, linear(sampling: { samples[Int(($0 * Double(samples.count - 1)).rounded())] }, points: samples.count))
            } else {
                unsaid.append("timing \(name): \(JSONWriter.string(timing))")
            }
        }
        // A duration named as a timing or a spring is `NAME-duration` (the import reads it back as NAME's).
        for (name, seconds) in (theme["durations"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let seconds = seconds.doubleValue else { continue }
            let value = "\(spelled((seconds * 1000 * 1e6).rounded() / 1e6))ms"
            if !emit(name, value), !emit(name + "-duration", value) {
                unsaid.append("duration \(name): --motion-\(name) and --motion-\(name)-duration are taken")
            }
        }
        for name in (theme["motions"]?.objectValue ?? [:]).keys.sorted() { unsaid.append("motion \(name): CSS custom properties hold values, not plans") }
        lines.append("}")
        return DialectResult(output: lines.joined(separator: "\n") + "\n", unsaid: unsaid)
    }

    /// `linear(…)` through points of `f` on [0, 1] such that the straight lines between them stay within
    /// `tolerance` of `f` at every one of `points` samples (greedy: each segment as long as it can be).
    public static func linear(sampling f: (Double) -> Double, points: Int = 2001, tolerance: Double = 0.0009) -> String {
        let xs = (0..<points).map { Double($0) / Double(points - 1) }, ys = xs.map(f)
        var chosen = [0], start = 0
        while start < points - 1 {
            var end = start + 1
            while end + 1 < points {
                let candidate = end + 1
                let fits = (start + 1..<candidate).allSatisfy { i in
                    let fraction = (xs[i] - xs[start]) / (xs[candidate] - xs[start])
                    return abs(ys[start] + (ys[candidate] - ys[start]) * fraction - ys[i]) <= tolerance
                }
                guard fits else { break }
                end = candidate
            }
            chosen.append(end)
            start = end
        }
        func rounded(_ x: Double, _ places: Double) -> String { spelled((x * places).rounded() / places) }
        let entries = chosen.map { i -> String in
            i == 0 || i == points - 1 ? rounded(ys[i], 1e5) : "\(rounded(ys[i], 1e5)) \(rounded(xs[i] * 100, 1e4))%"
        }
        return "linear(" + entries.joined(separator: ", ") + ")"
    }
}
