/// A Swift plugin: an identity and the performer types it provides.
///
/// ```swift
/// enum SpringPlugin: MotionPlugin {
///     static let id = "org.motiond.spring"
///     static let version = "1.0.0"
///     static var performers: [any Performer.Type] { [SpringPerformer.self] }
/// }
///
/// @_cdecl("motion_plugin_entry")
/// public func motionPluginEntry() -> UnsafeRawPointer { PluginEntry.descriptor(for: SpringPlugin.self) }
/// ```
public protocol MotionPlugin {
    /// Stable reverse-DNS identity, e.g. `org.example.springs`.
    static var id: String { get }
    static var version: String { get }
    static var performers: [any Performer.Type] { get }
}
