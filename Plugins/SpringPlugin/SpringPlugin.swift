import MotionAnimation
import MotionPluginKit

/// The shipped spring plugin: plan type `Spring`.
enum SpringPlugin: MotionPlugin {
    static let id = "org.motiond.spring"
    static let version = "1.1.0"
    static var performers: [any Performer.Type] { [AnimationPerformer<SpringAnimation>.self] }
}

@_cdecl("motion_plugin_entry")
public func motionPluginEntry() -> UnsafeRawPointer { PluginEntry.descriptor(for: SpringPlugin.self) }
