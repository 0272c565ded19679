import MotionEngine
import MotionWire

extension PlanVocabulary {
    /// The shipped plugins' words (docs/vocabulary.md): `Tween` and `Keyframes` complete at once with no
    /// duration, a `Spring` starts at its `to`, a `Decay` where it comes to rest (its default drag is 3);
    /// `Set` sets a value at once; a theme's spring tokens are tried in a `Spring` and its timings in a `Tween`
    /// when it is set; a theme's retune carries a `Spring` on from the property's state and a
    /// `Tween` from its value and velocity for the rest of its new duration; a container animation cross-fades by default as Reinstate does (0.2 s
    /// ease-out `Tween`s of `opacity`); the shipped themes (`ShippedThemes`), `motiond` in force until one is set. The daemon always speaks it: a plan of a type no loaded plugin
    /// provides fails as any such plan does.
    package static let shipped = PlanVocabulary(
        instant: ["Tween": .noDuration, "Keyframes": .noDuration, "Spring": .startAtTarget, "Decay": .startAtRest(defaultDrag: 3)],
        setType: "Set",
        appear: ["type": "Tween", "property": "opacity", "from": [0], "to": [1], "duration": 0.2, "timing": "easeOut"],
        remove: ["type": "Tween", "property": "opacity", "from": [1], "to": [0], "duration": 0.2, "timing": "easeOut"],
        retunable: ["Spring": .fromCurrentState, "Tween": .timed(defaultDuration: 0.25),
                    "Keyframes": .path(defaultDuration: 0.25)],
        tokenUses: ["springs": ["type": "Spring", "property": "x", "from": [0], "to": [1], "spring": "@token"],
                    "timings": ["type": "Tween", "property": "x", "from": [0], "to": [1], "duration": 1, "timing": "@token"]],
        themes: ShippedThemes.all, baseTheme: ShippedThemes.motiond)
}
