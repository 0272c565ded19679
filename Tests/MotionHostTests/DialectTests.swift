import Foundation
@testable import MotionAnimation
import MotionDialects
import MotionJSON
import MotionTestSupport
import Testing

/// Other programs' motion dialects ⇄ theme tokens (docs/themes.md#dialects): niri's default
/// `animations` block and Hyprland's sample lines come back the same after export and import; a spring
/// exported to CSS is a `linear()` within 1e-3 of motiond's own curve; malformed files name line and column.
@Suite("Theme dialects")
struct DialectTests {
    static func fixture(_ name: String) throws -> String {
        try String(contentsOf: CCompiler.repository.appendingPathComponent("Tests/MotionHostTests/Fixtures/\(name)"), encoding: .utf8)
    }

    @Test func niriDefaultAnimationsRoundTrip() throws {
        let imported = try NiriDialect.importTheme(try Self.fixture("niri-animations.kdl"))
        let theme = imported.output
        #expect(theme["springs"]?["workspace-switch"] == ["dampingRatio": 1, "stiffness": 1000, "epsilon": 0.0001])
        #expect(theme["springs"]?["config-notification-open-close"] == ["dampingRatio": 0.6, "stiffness": 1000, "epsilon": 0.001])
        #expect(theme["timings"]?["window-open"] == "ease-out-expo" && theme["durations"]?["window-open"] == 0.15)
        #expect(theme["springs"]?.objectValue?.count == 7 && theme["timings"]?.objectValue?.count == 3)
        let exported = NiriDialect.exportTheme(theme)
        #expect(exported.unsaid.isEmpty, "\(exported.unsaid)")
        let again = try NiriDialect.importTheme(exported.output)
        #expect(again.output == theme, "export then import gives the same tokens:\n\(exported.output)")
    }

    /// niri's documented `custom-shader r"…"` (and `r#"…"#`, KDL 2's `#"…"#`): raw strings, no escapes,
    /// across lines; the file imports with its springs, the shader listed as what a token cannot say.
    @Test func niriRawStringsAreRead() throws {
        let nodes = try KDL.parse("a r\"C:\\x\"\nb r#\"say \"hi\"\"#\nc #\"two\nlines\"#\n")
        #expect(nodes.map(\.arguments) == [[.string("C:\\x")], [.string("say \"hi\"")], [.string("two\nlines")]])
        let imported = try NiriDialect.importTheme("""
            animations {
                window-open {
                    spring damping-ratio=0.8 stiffness=1000 epsilon=0.0001
                    custom-shader r"
                        vec4 open_color(vec3 coords_geo, vec3 size_geo) { return vec4(0.0); }
                    "
                }
                window-close {
                    custom-shader r#"vec4 close_color() { return vec4("quoted"); }"#
                }
            }
            """)
        #expect(imported.output["springs"]?["window-open"]?["stiffness"] == 1000, "\(imported.output)")
        #expect(throws: DialectError(line: 1, column: 3, "a raw string never ends")) { try KDL.parse("a r#\"open\"") }
    }

    /// Whole configuration files, as a desktop user has them: a hyprland.conf with variables and other
    /// sections, a stylesheet whose other rules use the properties; and exports that say every name once.
    @Test func wholeFilesImportAndExportsSayEachNameOnce() throws {
        let conf = """
            $terminal = kitty
            monitor = ,preferred,auto,1
            exec-once = waybar
            general {
                gaps_in = 5
            }
            decoration {
                rounding = 10
                blur {
                    enabled = true
                }
            }
            animations {
                enabled = yes
                bezier = myBezier, 0.05, 0.9, 0.1, 1.05
                animation = windows, 1, 7, myBezier
            }
            animations:enabled = true
            bind = SUPER, Q, exec, $terminal
            """
        let hyprland = try HyprlandDialect.importTheme(conf)
        #expect(hyprland.output["timings"]?["mybezier"] != nil || hyprland.output["timings"]?.objectValue?.count == 1, "\(hyprland.output)")
        #expect(hyprland.output["durations"]?["windows"] == 0.7, "\(hyprland.output)")
        #expect(throws: DialectError.self) { try HyprlandDialect.importTheme("animations {\n    gaps_in = 5\n}\n") }
        let css = """
            :root {
              --motion-standard: cubic-bezier(0.2, 0, 0, 1);
              --motion-short4: 200ms;
            }
            .card { transition: transform var(--motion-short4) var(--motion-standard); color: red; }
            /* a comment */ .sheet { animation-timing-function: var(--motion-standard) }
            """
        let imported = try CSSDialect.importTheme(css)
        #expect(imported.output["timings"]?["standard"] == [0.2, 0, 0, 1] && imported.output["durations"]?["short4"] == 0.2, "\(imported.output)")
        #expect(throws: DialectError(line: 2, column: 3, "--motion-a: its value does not end with ; before the next declaration")) {
            try CSSDialect.importTheme(":root {\n  --motion-a: cubic-bezier(0.2, 0, 0, 1)\n  --motion-b: 200ms;\n}\n")
        }
        // niri names a timing and a duration `window-open`: CSS says the duration as `-duration`, and reads it back.
        let niri = try NiriDialect.importTheme(try Self.fixture("niri-animations.kdl")).output
        let exported = CSSDialect.exportTheme(niri, timingSamples: ["window-open": (0...100).map { Double($0) / 100 }])
        let names = exported.output.split(separator: "\n").compactMap { $0.split(separator: ":").first.map { $0.trimmingCharacters(in: .whitespaces) } }.filter { $0.hasPrefix("--") }
        #expect(Set(names).count == names.count, "each custom property once: \(names)")
        let back = try CSSDialect.importTheme(exported.output).output
        #expect(back["durations"]?["window-open"] == niri["durations"]?["window-open"], "\(back)")
        // CSS's keyword curves are exact Béziers in Hyprland's terms.
        let keywords = HyprlandDialect.exportTheme(["name": "k", "timings": ["in": "ease-in", "lin": "linear"]])
        #expect(keywords.unsaid.isEmpty && keywords.output.contains("bezier = in, 0.42, 0, 1, 1"), "\(keywords)")
    }

    @Test func niriWhatATokenCannotSayIsListedAndMalformedFilesNameWhere() throws {
        let settings = try NiriDialect.importTheme("animations {\n    slowdown 3.0\n    window-open { off }\n}\n")
        #expect(settings.unsaid.count == 2, "\(settings.unsaid)")
        #expect(throws: DialectError(line: 3, column: 9, "spring needs damping-ratio= and stiffness=")) {
            try NiriDialect.importTheme("animations {\n    a {\n        spring stiffness=800\n    }\n}\n")
        }
        #expect(throws: DialectError.self) { try NiriDialect.importTheme("animations {\n    a {\n        curve \"bouncy\"\n    }\n}\n") }
        #expect(throws: DialectError(line: 1, column: 12, "a { block never ends: expected }")) { try NiriDialect.importTheme("animations {") }
        // Springs in other forms and masses are said in niri's (mass folded into stiffness).
        let heavy = NiriDialect.exportTheme(["name": "x", "springs": ["a": ["dampingRatio": 1, "stiffness": 500, "mass": 0.5], "b": ["tension": 100, "damping": 10]]])
        #expect(heavy.output.contains("a {\n        spring damping-ratio=1 stiffness=1000\n") && heavy.output.contains("spring damping-ratio=0.5 stiffness=100"),
                "\(heavy.output)")
    }

    @Test func hyprlandLinesRoundTrip() throws {
        let imported = try HyprlandDialect.importTheme(try Self.fixture("hyprland-animations.conf"))
        let theme = imported.output
        #expect(theme["timings"]?["my-bezier"] == [0.05, 0.9, 0.1, 1.05])
        #expect(theme["motions"]?["windows"] == ["type": "Tween", "timing": [0.05, 0.9, 0.1, 1.05], "duration": 0.7])
        #expect(theme["durations"]?["workspaces"] == 0.6)
        #expect(imported.unsaid == ["windowsOut: style popin 80%"])
        let exported = HyprlandDialect.exportTheme(theme)
        #expect(exported.output.contains("animation = windowsOut, 1, 7, default") && exported.output.contains("bezier = myBezier, 0.05, 0.9, 0.1, 1.05"))
        #expect(try HyprlandDialect.importTheme(exported.output).output == theme, "\(exported.output)")
        #expect(throws: DialectError(line: 2, column: 5, "curve \"nope\" is not a bezier defined above")) {
            try HyprlandDialect.importTheme("animations {\n    animation = windows, 1, 7, nope\n}\n")
        }
        #expect(HyprlandDialect.exportTheme(["name": "x", "springs": ["a": ["stiffness": 100]]]).unsaid == ["spring a: Hyprland has no springs"])
    }

    /// The points of a CSS `linear()` (each with its percentage, or the ends at 0 % and 100 %).
    static func linearPoints(_ text: String) -> [(x: Double, y: Double)] {
        let inner = text.dropFirst("linear(".count).dropLast()
        let entries = inner.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        return entries.enumerated().map { index, entry in
            let parts = entry.split(separator: " ")
            let y = Double(parts[0])!
            let x = parts.count > 1 ? Double(parts[1].dropLast())! / 100 : (index == 0 ? 0 : 1)
            return (x, y)
        }
    }

    @Test func aSpringExportedToCSSIsALinearEasingWithin1e3OfMotiondsCurve() throws {
        for token in [["dampingRatio": 0.6, "stiffness": 1000, "epsilon": 0.001], ["dampingRatio": 1, "stiffness": 800], ["dampingRatio": 0.3, "stiffness": 300, "mass": 2]] as [JSONValue] {
            let exported = CSSDialect.exportTheme(["name": "x", "springs": ["s": token]])
            let lines = exported.output.split(separator: "\n")
            let easing = String(try #require(lines.first { $0.contains("--motion-s:") }).split(separator: ": ")[1].dropLast())
            let durationLine = try #require(lines.first { $0.contains("--motion-s-duration:") })
            let milliseconds = try #require(Double(String(durationLine.split(separator: ": ")[1].dropLast(3))))
            let points = Self.linearPoints(easing)
            let spring = try #require(SpringForm(token: token))
            // motiond's own spring (the Simulation the plugin's lanes match, exact) from 0 to 1.
            let k = spring.stiffness / spring.mass, c = 2 * spring.dampingRatio * k.squareRoot()
            var worst = 0.0
            for step in 0...2000 {
                let progress = Double(step) / 2000, t = progress * milliseconds / 1000
                var simulation = Simulation(value: .zero, velocity: .zero, force: .spring(target: SIMD4(1, 0, 0, 0), tension: k, damping: c), threshold: 1e-12)
                simulation.advance(by: t)
                let segment = points.indices.dropFirst().first { points[$0].x >= progress } ?? points.count - 1
                let (a, b) = (points[segment - 1], points[segment])
                let css = b.x == a.x ? b.y : a.y + (b.y - a.y) * (progress - a.x) / (b.x - a.x)
                worst = max(worst, abs(css - simulation.published.value.x))
            }
            #expect(worst <= 1e-3, "\(token): \(worst) with \(points.count) points")
        }
    }

    @Test func cssPropertiesRoundTripAndMalformedOnesNameWhere() throws {
        let theme: JSONValue = ["name": "x", "timings": ["emphasized": [0.2, 0, 0, 1], "enter": "ease-out", "stepped": "steps(4, jump-start)"],
                                "durations": ["medium2": 0.3, "spatial.slow": 0.45]]
        let exported = CSSDialect.exportTheme(theme)
        #expect(exported.output.contains("--motion-spatial__slow: 450ms;"), "\(exported.output)")
        var again = try CSSDialect.importTheme(exported.output).output
        again["name"] = "x"
        #expect(again == theme, "\(exported.output)")
        #expect(throws: DialectError(line: 2, column: 3, "--motion-x: \"bouncy\" is not a timing or a duration")) {
            try CSSDialect.importTheme(":root {\n  --motion-x: bouncy;\n}\n")
        }
    }

    @Test func libadwaitasTermsForSpringsAndEasings() {
        let exported = AdwaitaDialect.exportTheme(["name": "x", "springs": ["nav": ["dampingRatio": 1, "mass": 1, "stiffness": 1000]],
                                                   "timings": ["ease": "ease-out-cubic", "css": "ease-in-out", "m3": [0.2, 0, 0, 1]]])
        #expect(exported.output.contains("/* nav */ adw_spring_params_new (1, 1, 1000);"))
        #expect(exported.output.contains("/* ease */ ADW_EASE_OUT_CUBIC;"))
        // CSS's names are libadwaita's since 1.7, the same Béziers.
        #expect(exported.output.contains("/* css */ ADW_EASE_IN_OUT;"))
        #expect(exported.unsaid.count == 1 && exported.unsaid[0].hasPrefix("timing m3"))
    }
}
