import MotionPluginKit

/// The shipped interactions (docs/vocabulary.md#interactions): plan types `Draggable` and `Tossable`, built only on the host
/// extension "motion.gesture/1" (and plans they emit), as a third-party interaction would be.
enum InteractionsPlugin: MotionPlugin {
    static let id = "org.motiond.interactions"
    static let version = "1.0.0"
    static var performers: [any Performer.Type] { [Draggable.self, Tossable.self] }
}

@_cdecl("motion_plugin_entry")
public func motionPluginEntry() -> UnsafeRawPointer { PluginEntry.descriptor(for: InteractionsPlugin.self) }
