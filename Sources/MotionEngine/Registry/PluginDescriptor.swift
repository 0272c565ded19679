import MotionPluginAPI
import MotionSchema

/// A plugin whose descriptor passed every check, ready to be registered.
public struct PluginDescriptor: @unchecked Sendable {
    // @unchecked: the pointers reference plugin-owned descriptor memory that is immutable and lives for
    // the process lifetime (motiond never unloads a plugin image); nothing writes through them.
    public let pointer: UnsafePointer<motion_plugin>
    public let id: String
    public let version: String
    public let buildTag: String
    /// The file it came from, or a label such as `<in-process>` for plugins linked into the host.
    public let file: String
    public let factories: [FactoryDescriptor]
    public let functions: [FunctionDescriptor]
}

public struct FactoryDescriptor: @unchecked Sendable {
    // @unchecked: as for PluginDescriptor, immutable plugin-owned memory kept for the process lifetime
    // (and `table`, when it is the host's copy, is never written after the check and never freed).
    /// The plugin's own struct: what the host hands back to the plugin (`create`, `advance_batch`, …).
    public let pointer: UnsafePointer<motion_factory>
    /// What the host reads members from: `pointer` itself when the plugin's struct is as large as this
    /// host's, else a copy padded with zeros (NULL) for the members a newer minor version appended, so
    /// reading them never runs past the plugin's array.
    public let table: UnsafePointer<motion_factory>
    public let planType: String
    /// The plans this factory accepts (ABI 1.2 `plan_schema`); nil when it declares none.
    package let schema: JSONSchema?
    public let isContinuous: Bool
    /// The plugin's "motion.batch/1" table when it has one: the engine then advances this factory's
    /// performers with one call per tick.
    public let batch: UnsafePointer<motion_batch>?
    /// The plugin's "motion.yield/1" table when it has one: its performers let go of a property that
    /// another performer of their target claims.
    public let yield: UnsafePointer<motion_yield>?
    /// The plugin's "motion.kept/1" table when it has one (and "motion.batch/1"): its batches may keep the
    /// values no one reads ("motion.unread/1"), and the engine asks for them before anything reads one.
    public var kept: UnsafePointer<motion_kept>? = nil
}

public struct FunctionDescriptor: Sendable, Equatable {
    public let name: String
    public let signature: String
    /// The C function's address (plugin images are never unloaded, so it stays valid).
    public let address: UInt
}
