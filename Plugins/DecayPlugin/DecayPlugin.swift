import MotionAnimation
import MotionPluginKit

/// The shipped decay plugin: plan type `Decay`.
enum DecayPlugin: MotionPlugin {
    static let id = "org.motiond.decay"
    static let version = "1.0.0"
    static var performers: [any Performer.Type] { [AnimationPerformer<DecayAnimation>.self] }
}

@_cdecl("motion_plugin_entry")
public func motionPluginEntry() -> UnsafeRawPointer { PluginEntry.descriptor(for: DecayPlugin.self) }
