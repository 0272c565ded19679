import MotionEngine
import MotionWire

/// The themes motiond ships (docs/themes.md), their numbers taken from their sources:
///
/// - `motiond`: the default; critically damped springs (no overshoot) at niri's and libadwaita's
///   stiffnesses, CSS's easings, Material's duration steps.
/// - `material3`: Material 3's easing and duration tokens (m3.material.io, "Easing and duration";
///   androidx `MotionTokens`) and Material 3 Expressive's spring tokens (androidx
///   `StandardMotionTokens` and `ExpressiveMotionTokens`: spatial and effects, fast/default/slow).
/// - `adwaita`: libadwaita's widget springs (`adw_spring_params_new (damping_ratio, mass, stiffness)`:
///   AdwNavigationView's page transition (1, 1, 1000); AdwCarousel's, AdwLeaflet's and AdwFlap's default
///   (1, 0.5, 500); AdwDialog's floating sheet (0.62, 1, 500, epsilon 0.01); the bottom sheet (0.8, 1, 400,
///   epsilon 0.0001)), the easings its widgets use (`ADW_EASE`, `ADW_EASE_IN_OUT`, `AdwTimedAnimation`'s
///   default `ADW_EASE_OUT_CUBIC`, `ADW_LINEAR`) and their durations (`*_DURATION` in its sources).
/// - `niri`: niri's default `animations { … }` (niri's wiki, "Configuration: Animations").
package enum ShippedThemes {
    package static func spring(_ ratio: Double, _ stiffness: Double, mass: Double? = nil, epsilon: Double? = nil) -> JSONValue {
        var keys: [String: JSONValue] = ["dampingRatio": .number(ratio), "stiffness": .number(stiffness)]
        if let mass { keys["mass"] = .number(mass) }
        if let epsilon { keys["epsilon"] = .number(epsilon) }
        return .object(keys)
    }

    package static func bezier(_ a: Double, _ b: Double, _ c: Double, _ d: Double) -> JSONValue {
        .array([.number(a), .number(b), .number(c), .number(d)])
    }

    package static let material3Durations: [String: JSONValue] = [
        "short1": 0.05, "short2": 0.1, "short3": 0.15, "short4": 0.2, "medium1": 0.25, "medium2": 0.3, "medium3": 0.35,
        "medium4": 0.4, "long1": 0.45, "long2": 0.5, "long3": 0.55, "long4": 0.6, "extra-long1": 0.7, "extra-long2": 0.8,
        "extra-long3": 0.9, "extra-long4": 1.0,
    ]

    package static let motiond = Theme(name: "motiond", tokens: [
        .springs: [
            "spatial.default": spring(1, 800), "spatial.fast": spring(1, 1000), "spatial.slow": spring(1, 300),
            "effects.default": spring(1, 1600), "bouncy": spring(0.6, 500),
            "route.push": spring(1, 800), "route.pop": spring(1, 800), "route.present": spring(1, 800),
            "route.dismiss": spring(1, 1000),
        ],
        .timings: ["standard": "ease-in-out", "enter": "ease-out", "exit": "ease-in", "linear": "linear"],
        .durations: material3Durations,
        .motions: [
            "notification.enter": ["type": "Spring", "dampingRatio": 1, "stiffness": 800],
            "notification.exit": ["type": "Tween", "timing": "ease-in", "duration": 0.15],
            "fade": ["type": "Tween", "timing": "linear", "duration": 0.15],
        ],
    ])

    package static let material3 = Theme(name: "material3", tokens: [
        .springs: [
            "spatial.fast": spring(0.9, 1400), "spatial.default": spring(0.9, 700), "spatial.slow": spring(0.9, 300),
            "effects.fast": spring(1, 3800), "effects.default": spring(1, 1600), "effects.slow": spring(1, 800),
            "expressive.spatial.fast": spring(0.6, 800), "expressive.spatial.default": spring(0.8, 380),
            "expressive.spatial.slow": spring(0.8, 200),
            // Routes: its spatial springs' stiffnesses, critically damped (docs/themes.md#routes).
            "route.push": spring(1, 700), "route.pop": spring(1, 700), "route.present": spring(1, 700),
            "route.dismiss": spring(1, 1400),
        ],
        .timings: [
            "emphasized": bezier(0.2, 0, 0, 1), "emphasized.decelerate": bezier(0.05, 0.7, 0.1, 1),
            "emphasized.accelerate": bezier(0.3, 0, 0.8, 0.15), "standard": bezier(0.2, 0, 0, 1),
            "standard.decelerate": bezier(0, 0, 0, 1), "standard.accelerate": bezier(0.3, 0, 1, 1),
            "legacy": bezier(0.4, 0, 0.2, 1), "linear": "linear",
        ],
        .durations: material3Durations,
        .motions: [
            "notification.enter": ["type": "Spring", "dampingRatio": 0.9, "stiffness": 700],
            "notification.exit": ["type": "Tween", "timing": [0.3, 0, 0.8, 0.15], "duration": 0.2],
        ],
    ])

    package static let adwaita = Theme(name: "adwaita", tokens: [
        .springs: [
            "navigation": spring(1, 1000, mass: 1), "carousel": spring(1, 500, mass: 0.5),
            "dialog.open": spring(0.62, 500, mass: 1, epsilon: 0.01), "bottom-sheet.open": spring(0.8, 400, mass: 1, epsilon: 0.0001),
            "route.push": spring(1, 1000, mass: 1), "route.pop": spring(1, 1000, mass: 1),
            // Its bottom sheet's stiffness, critically damped (docs/themes.md#routes).
            "route.present": spring(1, 400, mass: 1, epsilon: 0.0001), "route.dismiss": spring(1, 1000, mass: 1),
        ],
        // Easings and durations as libadwaita's widgets name them (docs/themes.md#adwaita cites each).
        .timings: [
            "ease": "ease", "ease-in-out": "ease-in-out", "ease-out-cubic": "ease-out-cubic", "linear": "linear",
        ],
        .durations: ["short": 0.2, "medium": 0.25, "toast": 0.3, "long": 0.4],
        .motions: [
            "notification.enter": ["type": "Spring", "dampingRatio": 0.62, "stiffness": 500, "mass": 1, "epsilon": 0.01],
            "notification.exit": ["type": "Tween", "timing": "ease-out-cubic", "duration": 0.3],
        ],
    ])

    package static let niri = Theme(name: "niri", tokens: [
        .springs: [
            "workspace-switch": spring(1, 1000, epsilon: 0.0001), "horizontal-view-movement": spring(1, 800, epsilon: 0.0001),
            "window-movement": spring(1, 800, epsilon: 0.0001), "window-resize": spring(1, 800, epsilon: 0.0001),
            "config-notification-open-close": spring(0.6, 1000, epsilon: 0.001),
            "exit-confirmation-open-close": spring(0.6, 500, epsilon: 0.01), "overview-open-close": spring(1, 800, epsilon: 0.0001),
            // The names every shipped theme has, from niri's nearest: a view moving (push, pop), a workspace (present, dismiss).
            "route.push": spring(1, 800, epsilon: 0.0001), "route.pop": spring(1, 800, epsilon: 0.0001),
            "route.present": spring(1, 1000, epsilon: 0.0001), "route.dismiss": spring(1, 1000, epsilon: 0.0001),
        ],
        .timings: ["window-open": "ease-out-expo", "window-close": "ease-out-quad", "screenshot-ui-open": "ease-out-quad"],
        .durations: ["window-open": 0.15, "window-close": 0.15, "screenshot-ui-open": 0.2],
        .motions: [
            "window-open": ["type": "Tween", "timing": "ease-out-expo", "duration": 0.15],
            "window-close": ["type": "Tween", "timing": "ease-out-quad", "duration": 0.15],
            "notification.enter": ["type": "Spring", "dampingRatio": 0.6, "stiffness": 1000, "epsilon": 0.001],
            "notification.exit": ["type": "Tween", "timing": "ease-out-quad", "duration": 0.15],
        ],
    ])

    package static let all: [String: Theme] = ["motiond": motiond, "material3": material3, "adwaita": adwaita, "niri": niri]
}
