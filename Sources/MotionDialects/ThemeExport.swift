import MotionJSON

/// A theme in one dialect's terms, by the dialect's name (`motionctl theme export --to`, the inspector's
/// export; docs/themes.md#dialects).
public enum ThemeExport {
    public static let dialects = ["css", "niri", "hyprland", "adwaita"]

    /// nil for a dialect not in `dialects`. `timingSamples`: CSS's `linear()` points for timings CSS has
    /// no words for, by token name.
    public static func export(_ tokens: JSONValue, to dialect: String, timingSamples: [String: [Double]] = [:]) -> DialectResult<String>? {
        switch dialect {
        case "niri": NiriDialect.exportTheme(tokens)
        case "hyprland": HyprlandDialect.exportTheme(tokens)
        case "adwaita": AdwaitaDialect.exportTheme(tokens)
        case "css": CSSDialect.exportTheme(tokens, timingSamples: timingSamples)
        default: nil
        }
    }
}
