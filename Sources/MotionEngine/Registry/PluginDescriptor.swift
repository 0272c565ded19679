import MotionPluginAPI
import MotionSchema

/// A plugin whose descriptor passed every check, ready to be registered.
package struct PluginDescriptor: @unchecked Sendable {
    // @unchecked: the pointers reference plugin-owned descriptor memory that is immutable and lives for
    // the process lifetime (motiond never unloads a plugin image); nothing writes through them.
    package let pointer: UnsafePointer<motion_plugin>
    package let id: String
    package let version: String
    package let buildTag: String
    /// The file it came from, or a label such as `<in-process>` for plugins linked into the host.
    package let file: String
    package let factories: [FactoryDescriptor]
    package let functions: [FunctionDescriptor]
}

package struct FactoryDescriptor: @unchecked Sendable {
    // @unchecked: as for PluginDescriptor, immutable plugin-owned memory kept for the process lifetime
    // (and `table`, when it is the host's copy, is never written after the check and never freed).
    /// The plugin's own struct: what the host hands back to the plugin (`create`, `advance_batch`, …).
    package let pointer: UnsafePointer<motion_factory>
    /// What the host reads members from: `pointer` itself when the plugin's struct is as large as this
    /// host's, else a copy padded with zeros (NULL) for the members a newer minor version appended, so
    /// reading them never runs past the plugin's array.
    package let table: UnsafePointer<motion_factory>
    package let planType: String
    /// The plans this factory accepts (ABI 1.2 `plan_schema`); nil when it declares none.
    package let schema: JSONSchema?
    package let isContinuous: Bool
    /// The plugin's "motion.batch/1" table when it has one: the engine then advances this factory's
    /// performers with one call per tick.
    package let batch: UnsafePointer<motion_batch>?
    /// The plugin's "motion.yield/1" table when it has one: its performers let go of a property that
    /// another performer of their target claims.
    package let yield: UnsafePointer<motion_yield>?
    /// The plugin's "motion.kept/1" table when it has one (and "motion.batch/1"): its batches may keep the
    /// values no one reads ("motion.unread/1"), and the engine asks for them before anything reads one.
    package var kept: UnsafePointer<motion_kept>? = nil
}

package struct FunctionDescriptor: Sendable, Equatable {
    package let name: String
    package let signature: String
    /// The C function's address (plugin images are never unloaded, so it stays valid).
    package let address: UInt
}
