import MotionAnimation
import MotionPluginKit

/// The shipped tween plugin: plan types `Tween` and `Keyframes`.
enum TweenPlugin: MotionPlugin {
    static let id = "org.motiond.tween"
    static let version = "1.0.0"
    static var performers: [any Performer.Type] {
        [AnimationPerformer<TweenAnimation>.self, AnimationPerformer<KeyframesAnimation>.self]
    }
}

@_cdecl("motion_plugin_entry")
public func motionPluginEntry() -> UnsafeRawPointer { PluginEntry.descriptor(for: TweenPlugin.self) }
