import MotionJSON

/// Theme tokens as libadwaita code (docs/themes.md#dialects): springs as `adw_spring_params_new
/// (damping_ratio, mass, stiffness)` (and the epsilon for `adw_spring_animation_set_epsilon`), easings
/// libadwaita names as `AdwEasing` values, durations in milliseconds for `adw_timed_animation_new`.
public enum AdwaitaDialect {
    public static func exportTheme(_ theme: JSONValue) -> DialectResult<String> {
        var lines = ["/* Motion tokens of the \"\(theme["name"]?.stringValue ?? "?")\" theme, as libadwaita takes them. */"]
        var unsaid: [String] = []
        for (name, token) in (theme["springs"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let spring = SpringForm(token: token) else { unsaid.append("spring \(name): not a spring"); continue }
            var line = "/* \(name) */ adw_spring_params_new (\(spelled(spring.dampingRatio)), \(spelled(spring.mass)), \(spelled(spring.stiffness)))"
            if let epsilon = spring.epsilon { line += "; /* epsilon \(spelled(epsilon)) */" } else { line += ";" }
            lines.append(line)
        }
        for (name, timing) in (theme["timings"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let easing = timing.stringValue, let value = easingName(easing) else {
                unsaid.append("timing \(name): \(JSONWriter.string(timing)) (AdwEasing has no Bézier curves)")
                continue
            }
            lines.append("/* \(name) */ \(value);")
        }
        for (name, seconds) in (theme["durations"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
            if let seconds = seconds.doubleValue { lines.append("/* \(name) */ \(spelled((seconds * 1000).rounded())); /* ms */") }
        }
        for name in (theme["motions"]?.objectValue ?? [:]).keys.sorted() { unsaid.append("motion \(name): libadwaita takes parameters, not plans") }
        return DialectResult(output: lines.joined(separator: "\n") + "\n", unsaid: unsaid)
    }

    /// `ease-out-cubic` → `ADW_EASE_OUT_CUBIC` for libadwaita's (Clutter's) names; `linear` → `ADW_LINEAR`;
    /// CSS's `ease`, `ease-in`, `ease-out`, `ease-in-out` → `ADW_EASE` … `ADW_EASE_IN_OUT` (libadwaita 1.7,
    /// the same cubic Béziers).
    static func easingName(_ name: String) -> String? {
        if name == "linear" { return "ADW_LINEAR" }
        let css = ["ease": "ADW_EASE", "ease-in": "ADW_EASE_IN", "ease-out": "ADW_EASE_OUT", "ease-in-out": "ADW_EASE_IN_OUT"]
        if let easing = css[name] { return easing }
        let kinds = ["quad", "cubic", "quart", "quint", "sine", "expo", "circ", "elastic", "back", "bounce"]
        for prefix in ["ease-in-out-", "ease-in-", "ease-out-"] where name.hasPrefix(prefix) {
            let kind = String(name.dropFirst(prefix.count))
            guard kinds.contains(kind) else { return nil }
            return "ADW_" + (prefix.dropLast() + "-" + kind).uppercased().split(separator: "-").joined(separator: "_")
        }
        return nil
    }
}
